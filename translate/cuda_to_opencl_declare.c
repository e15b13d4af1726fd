/*
 * CUDA C -> OpenCL C, declarations: the ones in function bodies, and the
 * program's top level (functions and their parameters, __device__,
 * __constant__ and __shared__ variables, types), read into the pass's
 * items in source order.
 */
#include "cuda_to_opencl_pass.h"

#include <stdlib.h>
#include <string.h>

/* ---- declarations in bodies ------------------------------------------------------------------- */

/* The end of an initializer or expression starting at i: the first ',',
 * ';' or closing bracket at depth 0. */
size_t cu_expression_end(const cu_state *st, size_t i, size_t end)
{
    while (i < end) {
        if (cu_is_open(st, i)) {
            i = st->match[i] + 1;
            continue;
        }
        if (cu_punct(st, i, P_COMMA) || cu_punct(st, i, P_SEMI) ||
            cu_punct(st, i, P_RPAREN) || cu_punct(st, i, P_RBRACKET) ||
            cu_punct(st, i, P_RBRACE))
            return i;
        ++i;
    }
    return end;
}

/* Whether the tokens at i declare variables; fills *d. */
int cu_declaration(cu_state *st, size_t i, size_t end, cu_decl *d)
{
    memset(d, 0, sizeof *d);
    size_t k = cu_specifiers(st, i, end);
    if (k == i)
        return 0;
    d->begin = i;
    d->spec_end = k;
    for (size_t q = i; q < k; ++q) {
        if (cu_is(st, q, st->w_shared_))
            d->shared = 1;
        if (cu_is(st, q, W_extern))
            d->is_extern = 1;
        if (cu_is(st, q, W_static))
            d->is_static = 1;
    }
    for (;;) {
        if (d->count == CU_MAX_DECLARATORS)
            return 0;
        cu_declarator *dd = &d->d[d->count];
        while (cu_punct(st, k, P_STAR) || cu_is_qualifier(st, k)) {
            if (cu_punct(st, k, P_STAR))
                dd->pointer++;
            ++k;
        }
        if (cu_punct(st, k, P_AMP) || cu_punct(st, k, P_ANDAND)) {
            if (cu_ident(st, k + 1))
                cu_refuse(st, k, "cannot translate '%s&': references are not "
                                 "supported by OpenCL C (use a pointer)",
                          cu_name(st, k + 1)->name);
            return 0;
        }
        if (!cu_ident(st, k) || cu_is_type_name(st, k))
            return 0;
        dd->name = k++;
        while (cu_punct(st, k, P_LBRACKET)) {
            dd->array = 1;
            k = st->match[k] + 1;
        }
        if (cu_punct(st, k, P_LPAREN))
            return 0; /* a function's declaration */
        if (cu_punct(st, k, P_ASSIGN)) {
            dd->init_begin = k + 1;
            dd->init_end = cu_expression_end(st, k + 1, end);
            k = dd->init_end;
        } else if (cu_punct(st, k, P_LPAREN)) {
            return 0;
        }
        d->count++;
        if (cu_punct(st, k, P_COMMA)) {
            d->d[d->count].comma = k;
            ++k;
            continue;
        }
        if (cu_punct(st, k, P_SEMI) || cu_punct(st, k, P_COLON)) {
            d->end = k;
            return 1;
        }
        return 0;
    }
}

/* ---- the top level ---------------------------------------------------------------------------------- */

static void cu_item_add(cu_state *st, cu_item item)
{
    st->items = cu_grow(st, st->items, st->item_count, sizeof *st->items);
    st->items[st->item_count++] = item;
}

size_t cu_hidden_add(cu_state *st, cu_hidden h)
{
    st->hidden = cu_grow(st, st->hidden, st->hidden_count, sizeof *st->hidden);
    st->hidden[st->hidden_count] = h;
    return st->hidden_count++;
}

/* The end of a declaration at the top level: its ';' (braces of
 * initializers and bodies of types skipped). */
static size_t cu_statement_end(cu_state *st, size_t i)
{
    while (i < st->count && !cu_punct(st, i, P_SEMI)) {
        if (cu_is_open(st, i))
            i = st->match[i];
        ++i;
    }
    if (i >= st->count)
        cu_fail(st, st->count ? st->count - 1 : 0, "missing ';' at the end");
    return i;
}

/* A struct, union or enum body: plain C only. */
static void cu_check_type_body(cu_state *st, size_t open)
{
    size_t close = st->match[open];
    cu_check_tokens(st, open, close);
    if (cu_is(st, open - 1, W_enum) || cu_is(st, open - 2, W_enum))
        return;
    for (size_t i = open + 1; i < close; ++i) {
        if (cu_punct(st, i, P_LBRACE)) {
            /* a nested struct */
            cu_check_type_body(st, i);
            i = st->match[i];
            continue;
        }
        if (cu_ident(st, i) && cu_punct(st, i + 1, P_LPAREN) &&
            !cu_is(st, i, W___attribute__) && !cu_is(st, i, st->w_align_))
            cu_refuse(st, i, "cannot translate '%s(': structs with member "
                             "functions or constructors are classes, which "
                             "OpenCL C does not support",
                      cu_name(st, i)->name);
        if (cu_punct(st, i, P_ASSIGN))
            cu_refuse(st, i, "cannot translate a default member initializer: "
                             "not supported by OpenCL C");
    }
}

long cu_function_find(cu_state *st, int32_t name)
{
    return st->function_of[name] ? st->function_of[name] - 1 : -1;
}

static void cu_function_params(cu_state *st, cu_function *f)
{
    f->param_count = 0;
    size_t i = f->open + 1;
    if (cu_is(st, i, W_void) && cu_punct(st, i + 1, P_RPAREN))
        return;
    f->params = clc_arena_alloc(st->arena, CU_MAX_PARAMS * sizeof *f->params);
    while (i < f->close) {
        size_t end = i;
        while (end < f->close && !cu_punct(st, end, P_COMMA)) {
            if (cu_is_open(st, end))
                end = st->match[end];
            ++end;
        }
        if (f->param_count == CU_MAX_PARAMS)
            cu_refuse(st, i, "cannot translate a function of more than %d "
                             "parameters", CU_MAX_PARAMS);
        cu_param *p = &f->params[f->param_count++];
        p->begin = i;
        p->end = end;
        for (size_t k = i; k < end; ++k) {
            if (cu_punct(st, k, P_STAR) || cu_punct(st, k, P_LBRACKET))
                p->pointer = 1;
            if (cu_punct(st, k, P_AMP) || cu_punct(st, k, P_ANDAND))
                cu_refuse(st, k, "cannot translate '&' in a parameter: "
                                 "references are not supported by OpenCL C "
                                 "(use a pointer)");
            if (cu_punct(st, k, P_ASSIGN))
                cu_refuse(st, k, "cannot translate a default argument: not "
                                 "supported by OpenCL C");
            if (cu_punct(st, k, P_ELLIPSIS))
                cu_refuse(st, k, "cannot translate '...': variadic functions "
                                 "are not supported by OpenCL C");
            if (cu_ident(st, k) && !cu_is_type_name(st, k) &&
                !cu_is_qualifier(st, k) && !cu_is(st, k, W_struct) &&
                !cu_is(st, k, W_union) && !cu_is(st, k, W_enum) &&
                !(k > i && (cu_is(st, k - 1, W_struct) || cu_is(st, k - 1, W_union) ||
                            cu_is(st, k - 1, W_enum))))
                p->name = k;
        }
        i = end + 1;
    }
}

/* A function being read at the top level. */
typedef struct cu_top_read {
    size_t begin, name, end;
    int body, kernel, force, no_inline;
    size_t index;
} cu_top_read;

/* A kernel's struct parameters: by value or through a pointer, a struct
 * with pointer members cannot reach OpenCL C. */
static void cu_check_kernel_params(cu_state *st, const cu_function *f)
{
    for (size_t k = 0; k < f->param_count; ++k) {
        /* float **rows: the rows' addresses would be read from device
         * memory too */
        size_t stars = 0, brackets = 0, parens = 0;
        for (size_t i = f->params[k].begin; i < f->params[k].end; ++i) {
            stars += cu_punct(st, i, P_STAR);
            brackets += cu_punct(st, i, P_LBRACKET);
            parens += cu_punct(st, i, P_LPAREN);
        }
        /* float **p and float *p[] (not float p[][4], float (*p)[4]) */
        if (stars >= 2 || (stars == 1 && brackets > 0 && parens == 0))
            cu_refuse(st, f->params[k].name ? f->params[k].name
                                            : f->params[k].begin,
                      "cannot translate a pointer to pointers as a kernel "
                      "parameter: device addresses in device memory "
                      "(OpenCL C cannot store device addresses there: pass "
                      "one buffer and offsets into it)");
    }
    for (size_t k = 0; k < f->param_count; ++k)
        for (size_t i = f->params[k].begin; i < f->params[k].end; ++i) {
            if (!cu_is_declared_type(st, i) ||
                !cu_type_has_pointers(clc_symbol_at(&st->symbols, i)->type, 0))
                continue;
            if (!f->params[k].pointer)
                cu_refuse(st, i, "cannot translate '%s' as a kernel parameter: "
                                 "a struct with pointer members passed by "
                                 "value (OpenCL cannot pass device addresses "
                                 "inside structs: pass the pointers as "
                                 "parameters of their own)",
                          cu_name(st, i)->name);
            /* its pointers would be read from device memory, where OpenCL
             * C 1.2 cannot store a __global address */
            cu_refuse(st, i, "cannot translate '%s *' as a kernel parameter: "
                             "a struct with pointer members in device memory "
                             "(OpenCL C cannot store device addresses there: "
                             "pass the pointers as parameters of their own)",
                      cu_name(st, i)->name);
        }
}

/* What cu_top_function reads that may refuse the function. */
static void cu_top_function_read(cu_state *st, void *arg)
{
    const cu_top_read *r = arg;
    size_t begin = r->begin, name = r->name, end = r->end;
    cu_check_tokens(st, begin, end + 1);
    cu_function *f = &st->functions[r->index];
    if (r->body && f->defined)
        cu_refuse(st, name, "cannot translate a second definition of '%s': "
                            "overloaded functions are not supported by "
                            "OpenCL C",
                  cu_name(st, name)->name);
    /* A translated kernel's name fits translate_kernel's: a longer one
     * was cut, and the kernel then not found by its own name. */
    size_t longest = sizeof ((translate_kernel *)0)->name - 1;
    if (r->kernel && st->target != NULL && st->tokens[name].length > longest)
        cu_fail(st, name, "kernel name too long (%zu characters; at most %zu)",
                (size_t)st->tokens[name].length, longest);
    f->force_inline |= r->force;
    f->no_inline |= r->no_inline;
    if (r->body || !f->defined) {
        f->name_token = name;
        f->begin = begin;
        f->returns_pointer = 0;
        for (size_t i = begin; i < name; ++i)
            f->returns_pointer |= cu_punct(st, i, P_STAR);
        f->open = name + 1;
        f->close = st->match[name + 1];
        cu_function_params(st, f);
    }
    if (r->kernel)
        cu_check_kernel_params(st, f);
    if (r->body) {
        f->defined = 1;
        f->body_open = end == st->match[end] ? end : st->match[end];
        f->body_close = end;
    }
    cu_item_add(st, (cu_item){.kind = CU_ITEM_FUNCTION, .begin = begin,
                              .end = end + 1, .fn = r->index,
                              .prototype = !r->body});
}

/* A function's definition or prototype: `begin` its first token, `name`
 * its name, the parameter list at name+1.  What it cannot be translated
 * for refuses it (and the kernels that call it), not the program. */
static void cu_top_function(cu_state *st, size_t begin, size_t name, size_t end,
                            int body)
{
    cu_top_read r = {.begin = begin, .name = name, .end = end, .body = body};
    int device = 0;
    for (size_t i = begin; i < name; ++i) {
        if (cu_is(st, i, st->w_global_))
            r.kernel = 1;
        else if (cu_is(st, i, st->w_device_))
            device = 1;
        else if (cu_is(st, i, st->w_forceinline_))
            r.force = 1;
        else if (cu_is(st, i, st->w_noinline_))
            r.no_inline = 1;
    }
    if (!r.kernel && !device) {
        /* host code: it runs on the CPU and never reaches OpenCL */
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = end + 1});
        return;
    }
    int32_t id = st->tokens[name].ident;
    long index = cu_function_find(st, id);
    if (index < 0) {
        st->functions = cu_grow(st, st->functions, st->function_count,
                                sizeof *st->functions);
        index = (long)st->function_count++;
        memset(&st->functions[index], 0, sizeof st->functions[index]);
        st->function_of[id] = (int32_t)index + 1;
    }
    cu_function *f = &st->functions[index];
    f->name = id;
    f->is_kernel |= r.kernel;
    r.index = (size_t)index;
    if (cu_try(st, cu_top_function_read, &r, r.index))
        return;
    /* refused: listed, never scanned nor written */
    f = &st->functions[index];
    f->defined |= body;
    f->param_count = 0;
    f->call_count = 0;
    if (f->name_token == 0) {
        f->name_token = name;
        f->begin = begin;
    }
    cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                              .end = end + 1});
}


/* A file-scope __shared__ variable: hidden, passed to the functions that
 * use it (extern: the launch's dynamic shared memory). */
static void cu_top_shared(cu_state *st, cu_hidden h, const cu_declarator *dd,
                          int is_extern)
{
    if (dd->pointer)
        cu_refuse(st, dd->name, "cannot translate a __shared__ pointer");
    h.kind = is_extern ? CU_H_DYNAMIC : CU_H_SHARED;
    size_t index = cu_hidden_add(st, h);
    st->hidden_of[h.name] = (int32_t)index + 1;
    st->global_space[cu_variable_key(st, dd->name)] = CU_LOCAL + 1;
    st->global_address[cu_variable_key(st, dd->name)] = 1;
    cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = h.decl_begin,
                              .end = h.decl_end});
}

/* A __device__ or __constant__ variable: a buffer of the program's,
 * passed to the kernels that use it. */
static void cu_top_device(cu_state *st, cu_hidden h, const cu_declarator *dd,
                          int constant, int is_extern)
{
    const char *what = constant ? "__constant__" : "__device__";
    if (dd->pointer)
        cu_refuse(st, dd->name, "cannot translate '%s': a pointer in a %s "
                                "variable (OpenCL cannot share device "
                                "addresses with the host)",
                  cu_name(st, dd->name)->name, what);
    for (size_t i = h.type_begin; i < h.type_end; ++i)
        if (cu_is_declared_type(st, i) &&
            cu_type_has_pointers(clc_symbol_at(&st->symbols, i)->type, 0))
            cu_refuse(st, dd->name, "cannot translate '%s': a struct with "
                                    "pointer members in a %s variable "
                                    "(OpenCL cannot share device addresses "
                                    "with the host)",
                      cu_name(st, dd->name)->name, what);
    if (is_extern)
        cu_refuse(st, dd->name, "cannot translate an extern %s variable: "
                                "separate compilation is not supported",
                  what);
    h.kind = CU_H_VARIABLE;
    h.is_constant = constant;
    h.variable = st->variable_count++;
    size_t index = cu_hidden_add(st, h);
    st->hidden_of[h.name] = (int32_t)index + 1;
    st->global_space[cu_variable_key(st, dd->name)] =
        (constant ? CU_CONSTANT : CU_GLOBAL) + 1;
    st->global_address[cu_variable_key(st, dd->name)] = (uint8_t)dd->array;
    cu_item_add(st, (cu_item){.kind = CU_ITEM_VARIABLE, .begin = h.decl_begin,
                              .end = h.decl_end, .hidden = index});
}

/* const data: integers become their value where used (so that they stay
 * constant expressions, as array sizes need), the rest program-scope
 * __constant data. */
static void cu_top_const(cu_state *st, const cu_hidden *h,
                         const cu_declarator *dd)
{
    size_t begin = h->type_begin, spec_end = h->type_end;
    int integral = 1;
    for (size_t i = begin; i < spec_end; ++i)
        if (cu_is(st, i, W_float) || cu_is(st, i, W_double) ||
            cu_is_declared_type(st, i) ||
            (cu_ident(st, i) && cu_name(st, i)->info.width != 0) ||
            cu_is(st, i, W_struct) || cu_is(st, i, W_union))
            integral = 0;
    if (dd->init_begin == 0)
        cu_fail(st, dd->name, "const '%s' without a value",
                cu_name(st, dd->name)->name);
    if (integral && !dd->array && !dd->pointer) {
        st->constants = cu_grow(st, st->constants, st->constant_count,
                                sizeof *st->constants);
        st->constants[st->constant_count] = (cu_constant){
            .name = h->name, .init_begin = dd->init_begin,
            .init_end = dd->init_end, .type_begin = begin,
            .type_end = spec_end};
        st->constant_of[h->name] = (int32_t)++st->constant_count;
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = h->decl_end});
        return;
    }
    if (dd->pointer)
        cu_refuse(st, dd->name, "cannot translate a const pointer at file "
                                "scope");
    st->global_space[cu_variable_key(st, dd->name)] = CU_CONSTANT + 1;
    st->global_address[cu_variable_key(st, dd->name)] = (uint8_t)dd->array;
    cu_item_add(st, (cu_item){.kind = CU_ITEM_CONSTANT, .begin = begin,
                              .end = h->decl_end});
}

/* A variable at file scope: [begin, semi]. */
static void cu_top_variable(cu_state *st, size_t begin, size_t semi)
{
    int device = 0, constant = 0, shared = 0, is_extern = 0, is_const = 0;
    size_t spec_end = cu_specifiers(st, begin, semi);
    for (size_t i = begin; i < spec_end; ++i) {
        device |= cu_is(st, i, st->w_device_);
        constant |= cu_is(st, i, st->w_constant_);
        shared |= cu_is(st, i, st->w_shared_);
        is_extern |= cu_is(st, i, W_extern);
        is_const |= cu_is(st, i, W_const) || cu_is(st, i, st->w_constexpr);
        if (cu_is(st, i, st->w_managed_))
            cu_check_identifier(st, i);
    }
    if (spec_end == begin || (!device && !constant && !shared && !is_const)) {
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = semi + 1});
        return;
    }
    cu_check_tokens(st, begin, semi);
    cu_decl d;
    if (!cu_declaration(st, begin, semi + 1, &d))
        cu_fail(st, begin, "cannot read this declaration");
    if (d.count != 1 && !shared && !device && !constant)
        cu_refuse(st, d.d[1].name, "cannot translate several const variables "
                                   "in one declaration at file scope (declare "
                                   "each on its own)");
    /* __device__ int a, b[4] = {...}; is one variable per declarator */
    for (size_t k = 0; k < d.count; ++k) {
        const cu_declarator *dd = &d.d[k];
        size_t next = k + 1 < d.count ? d.d[k + 1].comma : semi;
        cu_hidden h = {
            .name = st->tokens[dd->name].ident,
            .type_begin = begin,
            .type_end = spec_end,
            .name_token = dd->name,
            .dims_begin = dd->name + 1,
            .dims_end = dd->init_begin ? dd->init_begin - 1 : next,
            .init_begin = dd->init_begin,
            .init_end = dd->init_end,
            .decl_begin = begin,
            .decl_end = semi + 1,
            .array = dd->array,
            .declared_in = -1,
        };
        if (shared)
            cu_top_shared(st, h, dd, is_extern);
        else if (device || constant)
            cu_top_device(st, h, dd, constant, is_extern);
        else
            cu_top_const(st, &h, dd);
    }
}

/* A typedef: copied (unless it names a type OpenCL C has already), and
 * its name a type from here on.  Returns the token after it. */
static size_t cu_top_typedef(cu_state *st, size_t i)
{
    size_t semi = cu_statement_end(st, i);
    cu_check_tokens(st, i, semi);
    for (size_t k = i; k < semi; ++k)
        if (cu_punct(st, k, P_LBRACE)) {
            cu_check_type_body(st, k);
            k = st->match[k];
        }
    /* the typedef's name is a type from here on */
    size_t name = semi - 1;
    while (name > i && cu_punct(st, name, P_RBRACKET))
        name = st->match[name] - 1;
    if (cu_punct(st, name, P_RPAREN)) {
        /* a function type: its name is inside (*name) */
        size_t open = st->match[name];
        for (size_t k = open; k < name; ++k)
            if (cu_ident(st, k))
                name = k;
    }
    int builtin_alias = 0;
    if (cu_ident(st, name)) {
        int32_t id = st->tokens[name].ident;
        /* typedef unsigned int uint; OpenCL C has these already */
        builtin_alias = id == W_uchar || id == W_ushort ||
                        id == W_uint || id == W_ulong ||
                        id == W_size_t || cu_is_builtin_type(st, name);
        /* typedef __half2 half2; (cuda_fp16.h's): renamed, so kept */
        if (cu_opencl_keyword(st, name, id))
            builtin_alias = 0;
    }
    cu_item_add(st, (cu_item){.kind = builtin_alias ? CU_ITEM_SKIP
                                                    : CU_ITEM_COPY,
                              .begin = i, .end = semi + 1});
    return semi + 1;
}

/* A struct, union or enum defined here (struct __align__(16) name {...};):
 * the token after it, or 0 when `i` starts no such definition. */
static size_t cu_top_type(cu_state *st, size_t i)
{
    size_t tag_at = i + 1;
    while (tag_at < st->count && cu_skip_attribute(st, tag_at) != tag_at)
        tag_at = cu_skip_attribute(st, tag_at);
    if (!(cu_is(st, i, W_struct) || cu_is(st, i, W_union) ||
          cu_is(st, i, W_enum)) ||
        !(cu_punct(st, tag_at, P_LBRACE) ||
          (cu_ident(st, tag_at) && cu_punct(st, tag_at + 1, P_LBRACE))))
        return 0;
    size_t open = cu_punct(st, tag_at, P_LBRACE) ? tag_at : tag_at + 1;
    cu_check_type_body(st, open);
    size_t semi = cu_statement_end(st, i);
    int32_t tag = open == tag_at + 1 ? st->tokens[tag_at].ident : -1;
    if (st->match[open] + 1 != semi)
        cu_refuse(st, st->match[open] + 1,
                  "cannot translate a variable declared with its "
                  "struct's definition (declare it separately)");
    cu_item_add(st, (cu_item){.kind = CU_ITEM_STRUCT, .begin = i,
                              .end = semi + 1, .tag = tag});
    return semi + 1;
}

/* A function (a definition or a prototype) or a variable: its name's '('
 * found past attributes, or its end.  Returns the token after it. */
static size_t cu_top_declaration(cu_state *st, size_t i)
{
    size_t k = i, name = 0;
    int is_function = 0;
    while (k < st->count) {
        size_t after = cu_skip_attribute(st, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (cu_punct(st, k, P_LPAREN) && k > i && cu_ident(st, k - 1) &&
            !cu_is_type_name(st, k - 1) && !cu_is_qualifier(st, k - 1) &&
            !is_function) {
            is_function = 1;
            name = k - 1;
            k = st->match[k] + 1;
            continue;
        }
        if (cu_punct(st, k, P_ASSIGN) && !is_function) {
            k = cu_statement_end(st, k);
            break;
        }
        if (cu_punct(st, k, P_SEMI) || cu_punct(st, k, P_LBRACE))
            break;
        if (cu_is_open(st, k))
            k = st->match[k];
        ++k;
    }
    if (k >= st->count)
        cu_fail(st, i, "a declaration without an end");
    if (is_function) {
        if (cu_punct(st, k, P_LBRACE)) {
            cu_top_function(st, i, name, st->match[k], 1);
            return st->match[k] + 1;
        }
        cu_top_function(st, i, name, k, 0);
        return k + 1;
    }
    if (cu_punct(st, k, P_LBRACE))
        cu_fail(st, k, "unexpected '{'");
    cu_top_variable(st, i, k);
    return k + 1;
}

void cu_top_level(cu_state *st)
{
    size_t i = 0;
    size_t *closes = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *closes);
    size_t close_count = 0;
    while (i < st->count) {
        const clc_token *t = &st->tokens[i];
        if (close_count > 0 && i == closes[close_count - 1]) {
            close_count--;
            cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i, .end = i + 1});
            ++i;
            continue;
        }
        if (t->kind == CLC_TOK_PRAGMA || cu_punct(st, i, P_SEMI)) {
            cu_item_add(st, (cu_item){.kind = t->kind == CLC_TOK_PRAGMA ? CU_ITEM_COPY
                                                                        : CU_ITEM_SKIP,
                                      .begin = i, .end = i + 1});
            ++i;
            continue;
        }
        /* extern "C" { ... } and extern "C" declarations */
        if (cu_is(st, i, W_extern) && st->tokens[i + 1].kind == CLC_TOK_STRING) {
            if (cu_punct(st, i + 2, P_LBRACE)) {
                closes[close_count++] = st->match[i + 2];
                cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i,
                                          .end = i + 3});
                i += 3;
            } else {
                cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i,
                                          .end = i + 2});
                i += 2;
            }
            continue;
        }
        if (cu_is(st, i, W_static_assert) || cu_is(st, i, W__Static_assert)) {
            size_t semi = cu_statement_end(st, i);
            cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i,
                                      .end = semi + 1});
            i = semi + 1;
            continue;
        }
        cu_check_identifier(st, i); /* template, namespace, class, using */
        if (cu_is(st, i, W_typedef)) {
            i = cu_top_typedef(st, i);
            continue;
        }
        size_t after_type = cu_top_type(st, i);
        i = after_type != 0 ? after_type : cu_top_declaration(st, i);
    }
}
