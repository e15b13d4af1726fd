/*
 * CUDA C -> OpenCL C, what each function needs and the address spaces of
 * its pointers: the shared memory and variables it reaches (hidden
 * parameters), and one instance of it per combination of address spaces
 * its pointer parameters are called with, each body rewritten for its
 * spaces (OpenCL C 1.2 has no generic pointers).
 */
#include "cuda_to_opencl_pass.h"

#include <stdlib.h>
#include <string.h>

const char *const cu_space_word[5] = {"", "__global ", "__local ",
                                      "__constant ", ""};
const char cu_space_letter[6] = "pglc?";

/* ---- what each function needs ---------------------------------------------------------------------- */

static size_t cu_dynamic_item(cu_state *st)
{
    for (size_t k = 0; k < st->hidden_count; ++k)
        if (st->hidden[k].kind == CU_H_DYNAMIC && st->hidden[k].declared_in == -2)
            return k;
    cu_hidden h = {0};
    h.kind = CU_H_DYNAMIC;
    h.declared_in = -2; /* the one dynamic shared memory of a launch */
    return cu_hidden_add(st, h);
}

/* Pass one: the __shared__ variables of helpers become hidden items. */
static void cu_collect_shared(cu_state *st, size_t index)
{
    cu_function *f = &st->functions[index];
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        cu_decl d;
        if (!cu_statement_start(st, i) || !cu_declaration(st, i, f->body_close, &d))
            continue;
        if (d.is_static && !d.shared)
            cu_refuse(st, i, "cannot translate a static local variable: not "
                             "supported by OpenCL C (use __constant__ or "
                             "__device__ at file scope)");
        if (!d.shared)
            continue;
        for (size_t k = 0; k < d.count; ++k) {
            if (d.d[k].init_begin)
                cu_fail(st, d.d[k].name, "a __shared__ variable cannot have "
                                         "an initializer");
            if (d.d[k].pointer && !d.is_extern)
                cu_refuse(st, d.d[k].name, "cannot translate a __shared__ "
                                           "pointer");
        }
        if (d.is_extern || f->is_kernel)
            continue;
        if (d.count != 1)
            cu_refuse(st, d.d[1].name, "cannot translate several __shared__ "
                                       "variables in one declaration in a "
                                       "__device__ function");
        cu_hidden h = {0};
        h.kind = CU_H_SHARED;
        h.name = st->tokens[d.d[0].name].ident;
        h.type_begin = d.begin;
        h.type_end = d.spec_end;
        h.name_token = d.d[0].name;
        h.dims_begin = d.d[0].name + 1;
        h.dims_end = d.end;
        h.decl_begin = d.begin;
        h.decl_end = d.end + 1;
        h.array = d.d[0].array;
        h.declared_in = (long)index;
        cu_hidden_add(st, h);
    }
}

/* Pass two: which hidden items each function uses, and its calls. */
static void cu_scan_function(cu_state *st, size_t index, size_t dynamic)
{
    cu_function *f = &st->functions[index];
    for (size_t h = 0; h < st->hidden_count; ++h)
        if (st->hidden[h].kind == CU_H_SHARED &&
            st->hidden[h].declared_in == (long)index)
            f->needs[h] = 1;
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        cu_decl d;
        if (cu_statement_start(st, i) &&
            cu_declaration(st, i, f->body_close, &d) && d.shared && d.is_extern)
            f->needs[dynamic] = 1;
        if (!cu_ident(st, i) || cu_is_member(st, i))
            continue;
        int32_t id = st->tokens[i].ident;
        /* a parameter or local of a file-scope variable's name hides it */
        const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
        int hidden = symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT &&
                     symbol->depth > 0;
        if (st->hidden_of[id] && !hidden) {
            size_t item = (size_t)st->hidden_of[id] - 1;
            if (st->hidden[item].kind == CU_H_DYNAMIC) {
                f->needs[dynamic] = 1;
                int seen = 0;
                for (size_t k = 0; k < f->file_alias_count; ++k)
                    seen |= f->file_aliases[k] == item;
                if (!seen) {
                    f->file_aliases = cu_grow(st, f->file_aliases,
                                              f->file_alias_count,
                                              sizeof *f->file_aliases);
                    f->file_aliases[f->file_alias_count++] = item;
                }
            } else {
                f->needs[item] = 1;
            }
        }
        long callee = cu_function_find(st, id);
        if (callee >= 0 && cu_punct(st, i + 1, P_LPAREN) &&
            !(i > 0 && cu_is_type_name(st, i - 1))) {
            if (st->functions[callee].is_kernel)
                cu_refuse(st, i, "cannot translate a call of the __global__ "
                                 "function '%s' from device code: dynamic "
                                 "parallelism is not supported",
                          cu_name(st, i)->name);
            f->calls = cu_grow(st, f->calls, f->call_count, sizeof *f->calls);
            f->calls[f->call_count++] = (cu_call){i, (size_t)callee};
        }
    }
}

/* cu_try's steps: one function's shared memory, its uses and calls. */
typedef struct cu_scan_step {
    size_t index, dynamic;
} cu_scan_step;

static void cu_collect_one(cu_state *st, void *arg)
{
    cu_collect_shared(st, ((const cu_scan_step *)arg)->index);
}

static void cu_scan_one(cu_state *st, void *arg)
{
    const cu_scan_step *step = arg;
    cu_scan_function(st, step->index, step->dynamic);
}

void cu_scan_functions(cu_state *st)
{
    for (size_t k = 0; k < st->function_count; ++k)
        if (st->functions[k].defined && st->functions[k].refusal == NULL) {
            cu_scan_step step = {k, 0};
            cu_try(st, cu_collect_one, &step, k);
        }
    size_t dynamic = cu_dynamic_item(st);
    for (size_t k = 0; k < st->function_count; ++k) {
        st->functions[k].needs = clc_arena_alloc(st->arena, st->hidden_count + 1);
        if (st->functions[k].defined && st->functions[k].refusal == NULL) {
            cu_scan_step step = {k, dynamic};
            if (!cu_try(st, cu_scan_one, &step, k))
                st->functions[k].call_count = 0;
        }
    }
    /* what a callee needs, its callers pass: to a fixed point */
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            cu_function *f = &st->functions[k];
            for (size_t c = 0; c < f->call_count; ++c) {
                const cu_function *g = &st->functions[f->calls[c].callee];
                for (size_t h = 0; h < st->hidden_count; ++h)
                    if (g->needs[h] && !f->needs[h]) {
                        f->needs[h] = 1;
                        changed = 1;
                    }
            }
        }
    }
}

/* ---- address spaces in a body --------------------------------------------------------------------- */

/* Whether '(' at i opens a cast: a type name in parentheses.  *pointer
 * says whether the type is a pointer. */
static int cu_cast(const cu_state *st, size_t i, int *pointer)
{
    if (!cu_punct(st, i, P_LPAREN))
        return 0;
    size_t close = st->match[i];
    size_t k = cu_specifiers(st, i + 1, close);
    if (k == i + 1)
        return 0;
    if (i > 0 && (cu_is(st, i - 1, W_sizeof) || cu_is(st, i - 1, W__Alignof) ||
                  cu_is(st, i - 1, W___alignof__)))
        return 0;
    int stars = 0;
    while (k < close && (cu_punct(st, k, P_STAR) || cu_is_qualifier(st, k))) {
        stars |= cu_punct(st, k, P_STAR);
        ++k;
    }
    if (k != close)
        return 0;
    *pointer = stars;
    return 1;
}

/* The end of the unary expression at i (a cast's operand). */
static size_t cu_operand_end(const cu_state *st, size_t i, size_t end)
{
    while (i < end && (cu_punct(st, i, P_AMP) || cu_punct(st, i, P_STAR) ||
                       cu_punct(st, i, P_MINUS) || cu_punct(st, i, P_PLUS) ||
                       cu_punct(st, i, P_NOT) || cu_punct(st, i, P_TILDE) ||
                       cu_punct(st, i, P_INC) || cu_punct(st, i, P_DEC)))
        ++i;
    int pointer;
    if (cu_cast(st, i, &pointer))
        return cu_operand_end(st, st->match[i] + 1, end);
    if (cu_is_open(st, i))
        i = st->match[i] + 1;
    else if (i < end)
        ++i;
    for (;;) {
        if (cu_punct(st, i, P_LBRACKET) || cu_punct(st, i, P_LPAREN))
            i = st->match[i] + 1;
        else if ((cu_punct(st, i, P_DOT) || cu_punct(st, i, P_ARROW)) &&
                 cu_ident(st, i + 1))
            i += 2;
        else if (cu_punct(st, i, P_INC) || cu_punct(st, i, P_DEC))
            ++i;
        else
            break;
    }
    return i < end ? i : end;
}

static cu_space cu_expr_space(cu_state *st, size_t begin, size_t end);

/* The instance key of a call at `at` (the callee's name): the spaces of
 * the pointers it passes. */
static cu_instance_key cu_call_key(cu_state *st, size_t at, size_t callee)
{
    cu_instance_key key = {.fn = callee};
    size_t open = at + 1, close = st->match[open];
    size_t arg = open + 1;
    for (size_t k = 0; k < st->functions[callee].param_count && arg < close;
         ++k) {
        size_t arg_end = cu_expression_end(st, arg, close);
        if (st->functions[callee].params[k].pointer) {
            cu_space s = cu_expr_space(st, arg, arg_end);
            key.spaces[k] = (uint8_t)(s == CU_UNKNOWN ? CU_GLOBAL : s);
        }
        arg = arg_end + 1;
    }
    return key;
}

/* The space of the pointer a call at `at` returns; CU_UNKNOWN (and the
 * caller built again later) while the callee's instance is not built. */
static cu_space cu_call_space(cu_state *st, size_t at, size_t callee)
{
    cu_instance_key key = cu_call_key(st, at, callee);
    size_t target = cu_instance_get(st, &key);
    if (st->instances[target].return_space != 0)
        return (cu_space)(st->instances[target].return_space - 1);
    st->return_pending = 1;
    return CU_UNKNOWN;
}

/* The address space an expression's pointer value points into: that of
 * the first pointer or array it names, or of the pointer a function it
 * calls returns; else of the variable whose address it takes; CU_UNKNOWN
 * when it names none. */
static cu_space cu_expr_space(cu_state *st, size_t begin, size_t end)
{
    cu_space fallback = CU_UNKNOWN;
    for (size_t i = begin; i < end; ++i) {
        int pointer;
        if (cu_cast(st, i, &pointer)) {
            i = st->match[i];
            continue;
        }
        if (!cu_ident(st, i) || cu_is_member(st, i))
            continue;
        if (cu_punct(st, i + 1, P_LPAREN)) {
            long fn = st->function_of[st->tokens[i].ident] - 1;
            if (fn >= 0 && st->functions[fn].returns_pointer)
                return cu_call_space(st, i, (size_t)fn);
        }
        size_t id = cu_variable_key(st, i);
        if (st->space_of[id] == 0)
            continue;
        cu_space space = (cu_space)(st->space_of[id] - 1);
        if (st->address_of[id])
            return space;
        if (fallback == CU_UNKNOWN && i > begin && cu_punct(st, i - 1, P_AMP))
            fallback = space;
    }
    return fallback;
}

/* Whether two keys of one function's instances are the same. */
static int cu_instance_key_equal(const cu_state *st, const cu_instance_key *a,
                                 const cu_instance_key *b)
{
    return a->fn == b->fn &&
           memcmp(a->spaces, b->spaces, st->functions[a->fn].param_count) == 0;
}

/* An instance's name: a kernel's CUDA_KERNEL_RENAMED_PREFIX and its own;
 * a helper's first instance __kiln_fn_NAME,
 * the others __kiln_fn_NAME_ and a letter per pointer's space. */
static const char *cu_instance_name(cu_state *st, const cu_instance_key *key,
                                    int first)
{
    const cu_function *f = &st->functions[key->fn];
    const char *name = clc_ident_get(st->interner, f->name)->name;
    /* Every kernel: OpenCL C has built-ins (fdim, isequal, vload8,
     * native_sin, ...) and the prelude macros (sinf, min, ...) of names a
     * CUDA kernel may have, more than any list keeps. */
    if (f->is_kernel)
        return cu_printf(st, CUDA_KERNEL_RENAMED_PREFIX "%s", name);
    /* Helpers get names of their own: CUDA C lets a program define dot,
     * clamp, length, rsqrtf..., which OpenCL C has as built-ins or the
     * prelude as macros. */
    if (first)
        return cu_printf(st, "__kiln_fn_%s", name);
    char letters[CU_MAX_PARAMS + 1];
    size_t n = 0;
    for (size_t k = 0; k < f->param_count; ++k)
        if (f->params[k].pointer)
            letters[n++] = cu_space_letter[key->spaces[k]];
    letters[n] = '\0';
    return cu_printf(st, "__kiln_fn_%s_%s", name, letters);
}

size_t cu_instance_get(cu_state *st, const cu_instance_key *key)
{
    int first = 1;
    for (size_t k = 0; k < st->instance_count; ++k) {
        const cu_instance *in = &st->instances[k];
        if (in->key.fn != key->fn)
            continue;
        if (cu_instance_key_equal(st, &in->key, key))
            return k;
        first = 0;
    }
    st->instances = cu_grow(st, st->instances, st->instance_count,
                            sizeof *st->instances);
    cu_instance *in = &st->instances[st->instance_count];
    memset(in, 0, sizeof *in);
    in->key.fn = key->fn;
    memcpy(in->key.spaces, key->spaces, st->functions[key->fn].param_count);
    in->name = cu_instance_name(st, &in->key, first);
    return st->instance_count++;
}

const char *cu_ident_text(const cu_state *st, int32_t id)
{
    return clc_ident_get(st->interner, id)->name;
}

/* The name hidden item h has inside function fn. */
static const char *cu_hidden_name(cu_state *st, size_t h, size_t fn)
{
    const cu_hidden *item = &st->hidden[h];
    if (item->kind == CU_H_DYNAMIC)
        return "__kiln_dynamic_shared";
    const char *name = cu_ident_text(st, item->name);
    if (item->kind == CU_H_SHARED && item->declared_in >= 0 &&
        item->declared_in != (long)fn)
        return cu_printf(st, "__kiln_s%zu", h);
    if (item->kind == CU_H_SHARED && st->functions[fn].is_kernel)
        return item->declared_in < 0 ? name : cu_printf(st, "__kiln_s%zu", h);
    return item->array ? name : cu_printf(st, "__kiln_p_%s", name);
}

/* What function fn passes for hidden item h to a callee. */
static const char *cu_hidden_argument(cu_state *st, size_t h, size_t fn)
{
    const char *name = cu_hidden_name(st, h, fn);
    const cu_hidden *item = &st->hidden[h];
    if (item->kind == CU_H_SHARED && st->functions[fn].is_kernel && !item->array)
        return cu_printf(st, "&%s", name);
    return name;
}

/* The element type of a hidden item, in OpenCL C. */
const char *cu_hidden_type(cu_state *st, size_t h)
{
    const cu_hidden *item = &st->hidden[h];
    clc_edits e;
    clc_edits_init(st->arena, &e, item->type_begin, item->dims_end);
    cu_generic(st, &e, item->type_begin, item->dims_end);
    for (size_t i = item->type_begin; i < item->type_end; ++i)
        if (cu_is(st, i, st->w_shared_) || cu_is(st, i, st->w_device_) ||
            cu_is(st, i, st->w_constant_) || cu_is(st, i, W_static) ||
            cu_is(st, i, W_extern) || cu_is(st, i, st->w_constexpr))
            clc_edit_replace(&e, i, "");
    return cu_render(st, &e, item->type_begin, item->type_end);
}

const char *cu_hidden_dims(cu_state *st, size_t h, int skip_first)
{
    const cu_hidden *item = &st->hidden[h];
    size_t begin = item->dims_begin;
    if (skip_first && cu_punct(st, begin, P_LBRACKET))
        begin = st->match[begin] + 1;
    if (begin >= item->dims_end)
        return "";
    clc_edits e;
    clc_edits_init(st->arena, &e, begin, item->dims_end);
    cu_generic(st, &e, begin, item->dims_end);
    return cu_render(st, &e, begin, item->dims_end);
}

/* The parameter that carries hidden item h into function fn. */
const char *cu_hidden_param(cu_state *st, size_t h, size_t fn)
{
    const cu_hidden *item = &st->hidden[h];
    if (item->kind == CU_H_DYNAMIC)
        return "__local uint4 *__kiln_dynamic_shared";
    const char *space = item->kind == CU_H_SHARED ? "__local "
                        : item->is_constant ? "__constant " : "__global ";
    const char *name = cu_hidden_name(st, h, fn);
    const char *rest = cu_hidden_dims(st, h, 1);
    if (rest[0] != '\0')
        return cu_printf(st, "%s%s (*%s)%s", space, cu_hidden_type(st, h), name,
                         rest);
    return cu_printf(st, "%s%s *%s", space, cu_hidden_type(st, h), name);
}

typedef struct cu_body_decl {
    cu_decl d;
    struct cu_body_decl *next;
} cu_body_decl;

/* Whether kernel parameter `p` gets a hidden byte offset: a named pointer
 * (an array declarator `float a[]` keeps its buffer's start). */
int cu_param_takes_offset(cu_state *st, const cu_param *p)
{
    if (!p->pointer || p->name == 0)
        return 0;
    for (size_t i = p->name + 1; i < p->end; ++i)
        if (cu_punct(st, i, P_LBRACKET))
            return 0;
    return 1;
}

/* A kernel's pointer parameters start at a byte offset into the buffer
 * passed for them (a view: PyCUDA's int(a_gpu) + 4 or a_gpu[1:]), which
 * OpenCL sub-buffers cannot express at every offset.  Each such parameter
 * is renamed __kiln_base_K in the header, and the returned text (placed
 * at the body's start) declares the user's name as written, pointing
 * __kiln_offset_K bytes further: the hidden parameter cu_write_header
 * adds after the user's. */
static const char *cu_kernel_offsets(cu_state *st, clc_edits *e,
                                     const cu_function *f,
                                     const uint8_t *spaces)
{
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    clc_buffer_puts(&text, "");
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        if (!cu_param_takes_offset(st, p))
            continue;
        const char *type = cu_render(st, e, p->begin, p->name);
        const char *name = cu_render(st, e, p->name, p->name + 1);
        const char *space = cu_space_word[spaces[k]];
        clc_buffer_printf(&text,
                          " %s%s %s = (%s%s)((__global char *)__kiln_base_%zu "
                          "+ __kiln_offset_%zu);",
                          space, type, name, space, type, k, k);
        clc_edit_replace(e, p->name, cu_printf(st, "__kiln_base_%zu", k));
    }
    return clc_buffer_text(&text);
}

/* The instance's parameters: each pointer in the space this instance is
 * for; a kernel's size_t, ptrdiff_t and bool parameters in OpenCL's
 * spellings of CUDA's sizes. */
static void cu_instance_params(cu_state *st, const cu_function *f,
                               const uint8_t *spaces, clc_edits *e)
{
    memcpy(st->space_of, st->global_space, st->key_count);
    memcpy(st->address_of, st->global_address, st->key_count);
    memset(st->pointer_var, 0, st->key_count);
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        if (p->name == 0)
            continue;
        size_t id = cu_variable_key(st, p->name);
        st->space_of[id] = (uint8_t)((p->pointer ? spaces[k] : CU_PRIVATE) + 1);
        st->address_of[id] = (uint8_t)p->pointer;
    }
    if (!f->is_kernel)
        return;
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        for (size_t i = p->begin; i < p->end; ++i) {
            if (cu_is(st, i, W_size_t) || cu_is(st, i, W_uintptr_t))
                clc_edit_replace(e, i, "ulong");
            else if (cu_is(st, i, W_ptrdiff_t) || cu_is(st, i, W_intptr_t))
                clc_edit_replace(e, i, "long");
            else if (cu_is(st, i, W_bool))
                clc_edit_replace(e, i, "uchar");
        }
    }
}

/* The body's declarations, in order, each declarator with the space it
 * is known to have: __shared__ local, a pointer unknown until resolved,
 * anything else private. */
static cu_body_decl *cu_body_declarations(cu_state *st, const cu_function *f)
{
    cu_body_decl *decls = NULL, **tail = &decls;
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        if (!cu_statement_start(st, i))
            continue;
        cu_body_decl *bd = clc_arena_alloc(st->arena, sizeof *bd);
        if (!cu_declaration(st, i, f->body_close, &bd->d))
            continue;
        bd->d.in_for = cu_punct(st, i - 1, P_LPAREN);
        *tail = bd;
        tail = &bd->next;
        for (size_t k = 0; k < bd->d.count; ++k) {
            cu_declarator *dd = &bd->d.d[k];
            size_t id = cu_variable_key(st, dd->name);
            if (bd->d.shared) {
                st->space_of[id] = CU_LOCAL + 1;
                st->address_of[id] = 1;
                dd->space = CU_LOCAL;
            } else if (dd->pointer) {
                st->space_of[id] = CU_UNKNOWN + 1;
                st->address_of[id] = 1;
                st->pointer_var[id] = 1;
                dd->space = CU_UNKNOWN;
            } else {
                st->space_of[id] = CU_PRIVATE + 1;
                st->address_of[id] = (uint8_t)dd->array;
                dd->space = CU_PRIVATE;
            }
        }
    }
    return decls;
}

/* Pointers take the space of what they are initialised or assigned from;
 * chains resolve over rounds, and what stays unknown is global. */
static void cu_resolve_pointers(cu_state *st, const cu_function *f,
                                cu_body_decl *decls)
{
    for (int round = 0; round < 4; ++round) {
        for (cu_body_decl *bd = decls; bd; bd = bd->next)
            for (size_t k = 0; k < bd->d.count; ++k) {
                cu_declarator *dd = &bd->d.d[k];
                if (dd->space != CU_UNKNOWN || dd->init_begin == 0)
                    continue;
                cu_space s = cu_expr_space(st, dd->init_begin, dd->init_end);
                if (s != CU_UNKNOWN) {
                    dd->space = s;
                    st->space_of[cu_variable_key(st, dd->name)] = (uint8_t)(s + 1);
                }
            }
        for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
            if (!cu_ident(st, i) || !cu_punct(st, i + 1, P_ASSIGN) ||
                cu_is_member(st, i))
                continue;
            size_t id = cu_variable_key(st, i);
            if (!st->pointer_var[id] || st->space_of[id] != CU_UNKNOWN + 1)
                continue;
            cu_space s = cu_expr_space(st, i + 2,
                                       cu_expression_end(st, i + 2, f->body_close));
            if (s != CU_UNKNOWN)
                st->space_of[id] = (uint8_t)(s + 1);
        }
    }
    for (cu_body_decl *bd = decls; bd; bd = bd->next)
        for (size_t k = 0; k < bd->d.count; ++k) {
            cu_declarator *dd = &bd->d.d[k];
            size_t id = cu_variable_key(st, dd->name);
            if (dd->space == CU_UNKNOWN) {
                cu_space s = (cu_space)(st->space_of[id] - 1);
                dd->space = s == CU_UNKNOWN ? CU_GLOBAL : s;
                st->space_of[id] = (uint8_t)(dd->space + 1);
            }
        }
}

/* A file-scope const is hidden by a parameter or local of the same name
 * where that is in scope. */
static void cu_hidden_constants(cu_state *st, const cu_function *f,
                                clc_edits *e)
{
    for (size_t i = f->open; i < f->body_close; ++i) {
        const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
        if (cu_ident(st, i) && st->constant_of[st->tokens[i].ident] &&
            symbol != NULL && symbol->depth > 0 && !cu_is_member(st, i))
            clc_edit_replace(e, i, NULL);
    }
}

/* Uses of hidden scalars (a __device__ variable, a helper's __shared__
 * one) go through their pointer. */
static void cu_hidden_scalars(cu_state *st, size_t fn, clc_edits *e)
{
    const cu_function *f = &st->functions[fn];
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        if (!cu_ident(st, i) || cu_is_member(st, i))
            continue;
        int32_t id = st->tokens[i].ident;
        for (size_t h = 0; h < st->hidden_count; ++h) {
            const cu_hidden *item = &st->hidden[h];
            if (!f->needs[h] || item->kind == CU_H_DYNAMIC || item->array ||
                item->name != id)
                continue;
            if (item->kind == CU_H_SHARED &&
                (f->is_kernel || (item->declared_in >= 0 &&
                                  item->declared_in != (long)fn)))
                continue;
            const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
            if (symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT &&
                symbol->token != item->name_token && symbol->depth > 0)
                continue; /* a parameter or local of the same name */
            clc_edit_replace(e, i, cu_printf(st, "(*%s)", cu_hidden_name(st, h, fn)));
        }
    }
}

/* sizeof of a hidden array (a __device__ or __constant__ array, a
 * helper's __shared__ one) is its array type's, not its pointer's: the
 * array arrives as a pointer parameter. */
static void cu_hidden_array_sizes(cu_state *st, size_t fn, clc_edits *e)
{
    const cu_function *f = &st->functions[fn];
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        if (!cu_is(st, i, W_sizeof))
            continue;
        size_t name = i + 1, last = i + 1;
        if (cu_punct(st, i + 1, P_LPAREN)) {
            name = i + 2;
            last = st->match[i + 1];
            if (last != i + 3)
                continue;
        }
        if (!cu_ident(st, name))
            continue;
        if (last == name && (cu_punct(st, name + 1, P_LBRACKET) ||
                             cu_punct(st, name + 1, P_DOT) ||
                             cu_punct(st, name + 1, P_ARROW)))
            continue; /* sizeof name[0], sizeof s.x */
        for (size_t h = 0; h < st->hidden_count; ++h) {
            const cu_hidden *item = &st->hidden[h];
            if (!f->needs[h] || item->kind == CU_H_DYNAMIC || !item->array ||
                item->name != st->tokens[name].ident)
                continue;
            if (item->kind == CU_H_SHARED && f->is_kernel)
                continue; /* declared in the kernel: an array there */
            const clc_symbol *symbol = clc_symbol_at(&st->symbols, name);
            if (symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT &&
                symbol->token != item->name_token && symbol->depth > 0)
                continue; /* a parameter or local of the same name */
            const char *dims = cu_hidden_dims(st, h, 0);
            const char *size;
            if (strstr(dims, "[]") == NULL && dims[0] != '\0')
                size = cu_printf(st, "sizeof(%s%s)", cu_hidden_type(st, h), dims);
            else if (item->init_begin != 0)
                size = cu_printf(st, "sizeof(__kiln_init_%s)",
                                 cu_ident_text(st, item->name));
            else
                continue;
            for (size_t k = i; k < last; ++k)
                clc_edit_replace(e, k, "");
            clc_edit_replace(e, last, size);
            break;
        }
    }
}

/* Casts to pointers keep the space of their operand. */
static void cu_rewrite_casts(cu_state *st, const cu_function *f, clc_edits *e)
{
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        int pointer = 0;
        if (cu_cast(st, i, &pointer) && pointer) {
            size_t operand = st->match[i] + 1;
            size_t operand_end = cu_operand_end(st, operand, f->body_close);
            if (operand_end == operand)
                continue;
            cu_space s = cu_expr_space(st, operand, operand_end);
            if (s == CU_GLOBAL || s == CU_LOCAL || s == CU_CONSTANT)
                clc_edit_after(st->arena, e, i, cu_space_word[s]);
        }
        if ((cu_is(st, i, st->w_static_cast) || cu_is(st, i, st->w_reinterpret_cast) ||
             cu_is(st, i, st->w_const_cast)) && cu_punct(st, i + 1, P_LT)) {
            size_t k = i + 2;
            while (k < f->body_close && !cu_punct(st, k, P_GT))
                ++k;
            int stars = 0;
            for (size_t q = i + 2; q < k; ++q)
                stars |= cu_punct(st, q, P_STAR);
            if (stars && cu_punct(st, k + 1, P_LPAREN)) {
                cu_space s = cu_expr_space(st, k + 2, st->match[k + 1]);
                if (s == CU_GLOBAL || s == CU_LOCAL || s == CU_CONSTANT)
                    clc_edit_after(st->arena, e, i, cu_space_word[s]);
            }
        }
    }
}

/* A __shared__ declaration moves: a kernel's to the top of its body
 * (`hoisted`), a helper's out (the kernel passes it in), an extern one
 * becomes an alias of the dynamic shared memory. */
static void cu_move_shared(cu_state *st, const cu_function *f,
                           const cu_decl *d, clc_edits *e, clc_buffer *hoisted)
{
    for (size_t i = d->begin; i < d->spec_end; ++i)
        if (cu_is(st, i, st->w_shared_) || cu_is(st, i, W_extern) ||
            cu_is(st, i, W_static))
            clc_edit_replace(e, i, "");
    const char *type = cu_render(st, e, d->begin, d->spec_end);
    if (d->is_extern) {
        clc_buffer alias;
        clc_buffer_init(&alias, st->arena);
        for (size_t k = 0; k < d->count; ++k)
            clc_buffer_printf(&alias, " __local %s *%s = (__local %s *)"
                                      "__kiln_dynamic_shared;",
                              type, cu_spelling(st, d->d[k].name), type);
        clc_edit_drop(e, d->begin, d->end + 1);
        clc_edit_replace(e, d->begin, clc_buffer_text(&alias));
    } else if (f->is_kernel) {
        clc_buffer_printf(hoisted, " __local %s",
                          cu_render(st, e, d->begin, d->end + 1));
        clc_edit_drop(e, d->begin, d->end + 1);
    } else {
        clc_edit_drop(e, d->begin, d->end + 1);
    }
}

/* Declarations: pointers get their space (one declaration per declarator
 * where they differ); __shared__ ones move (cu_move_shared). */
static void cu_rewrite_declarations(cu_state *st, const cu_function *f,
                                    cu_body_decl *decls, clc_edits *e,
                                    clc_buffer *hoisted)
{
    for (cu_body_decl *bd = decls; bd; bd = bd->next) {
        cu_decl *d = &bd->d;
        if (d->shared) {
            cu_move_shared(st, f, d, e, hoisted);
            continue;
        }
        int spaced = 0;
        for (size_t k = 0; k < d->count; ++k)
            if (d->d[k].pointer && d->d[k].space != CU_PRIVATE)
                spaced = 1;
        if (!spaced)
            continue;
        const char *spec = cu_render(st, e, d->begin, d->spec_end);
        if (d->in_for) {
            for (size_t k = 0; k < d->count; ++k)
                if (d->d[k].pointer) {
                    clc_edit_before(st->arena, e, d->begin, cu_space_word[d->d[k].space]);
                    break;
                }
            continue;
        }
        clc_edit_before(st->arena, e, d->begin,
                  d->d[0].pointer ? cu_space_word[d->d[0].space] : "");
        for (size_t k = 1; k < d->count; ++k)
            clc_edit_replace(e, d->d[k].comma,
                       cu_printf(st, "; %s%s",
                                 d->d[k].pointer ? cu_space_word[d->d[k].space]
                                                 : "",
                                 spec));
    }
}

/* Calls: each to the callee's instance for the spaces of its pointer
 * arguments, with the hidden items it needs passed on. */
static void cu_rewrite_calls(cu_state *st, size_t fn, clc_edits *e)
{
    for (size_t c = 0; c < st->functions[fn].call_count; ++c) {
        size_t at = st->functions[fn].calls[c].token;
        size_t callee = st->functions[fn].calls[c].callee;
        size_t open = at + 1, close = st->match[open];
        cu_instance_key key = cu_call_key(st, at, callee);
        size_t target = cu_instance_get(st, &key);
        const cu_function *g = &st->functions[callee];
        clc_edit_replace(e, at, st->instances[target].name);
        clc_buffer extra;
        clc_buffer_init(&extra, st->arena);
        for (size_t h = 0; h < st->hidden_count; ++h)
            if (g->needs[h])
                clc_buffer_printf(&extra, "%s%s",
                                  extra.length || close != open + 1 ? ", " : "",
                                  cu_hidden_argument(st, h, fn));
        if (extra.length)
            clc_edit_before(st->arena, e, close, clc_buffer_text(&extra));
    }
}

/* What goes at the top of the body: a kernel declares the shared memory
 * of the helpers it calls (after its own, in `hoisted`), and file-scope
 * extern __shared__ arrays become aliases of the dynamic shared memory. */
static void cu_body_prologue(cu_state *st, size_t fn, clc_edits *e,
                             clc_buffer *hoisted)
{
    const cu_function *f = &st->functions[fn];
    if (f->is_kernel)
        for (size_t h = 0; h < st->hidden_count; ++h) {
            const cu_hidden *item = &st->hidden[h];
            if (!f->needs[h] || item->kind != CU_H_SHARED)
                continue;
            clc_buffer_printf(hoisted, " __local %s %s%s;", cu_hidden_type(st, h),
                              cu_hidden_name(st, h, fn), cu_hidden_dims(st, h, 0));
        }
    clc_buffer aliases;
    clc_buffer_init(&aliases, st->arena);
    for (size_t k = 0; k < f->file_alias_count; ++k) {
        size_t h = f->file_aliases[k];
        const char *type = cu_hidden_type(st, h);
        clc_buffer_printf(&aliases, " __local %s *%s = (__local %s *)"
                                    "__kiln_dynamic_shared;",
                          type, cu_ident_text(st, st->hidden[h].name), type);
    }
    clc_edit_after(st->arena, e, f->body_open, clc_buffer_text(hoisted));
    clc_edit_after(st->arena, e, f->body_open, clc_buffer_text(&aliases));
}

/* Builds instance `index`: its address spaces, calls and edits. */
void cu_instance_build(cu_state *st, size_t index)
{
    size_t fn = st->instances[index].key.fn;
    const cu_function *f = &st->functions[fn];
    uint8_t spaces[CU_MAX_PARAMS];
    memcpy(spaces, st->instances[index].key.spaces, sizeof spaces);
    clc_edits e;
    size_t end = f->defined ? f->body_close + 1 : f->close + 1;
    clc_edits_init(st->arena, &e, f->begin, end);
    cu_generic(st, &e, f->open + 1, f->close);
    cu_instance_params(st, f, spaces, &e);
    const char *offsets = f->is_kernel ? cu_kernel_offsets(st, &e, f, spaces)
                                       : "";
    if (!f->defined && !f->is_kernel)
        /* called, and defined in another file: nvcc -rdc links it, an
         * OpenCL program has nothing to link it from */
        cu_refuse(st, f->name_token,
                  "cannot translate '%s': the function is declared but not "
                  "defined in the program (device code in other files is "
                  "not linked in)",
                  cu_ident_text(st, st->tokens[f->name_token].ident));
    if (!f->defined) {
        st->instances[index].edits = e;
        return;
    }
    cu_generic(st, &e, f->body_open, f->body_close + 1);
    cu_body_decl *decls = cu_body_declarations(st, f);
    cu_hidden_constants(st, f, &e);
    cu_resolve_pointers(st, f, decls);
    cu_hidden_scalars(st, fn, &e);
    cu_rewrite_casts(st, f, &e);
    clc_buffer hoisted;
    clc_buffer_init(&hoisted, st->arena);
    cu_rewrite_declarations(st, f, decls, &e, &hoisted);
    cu_rewrite_calls(st, fn, &e);
    cu_hidden_array_sizes(st, fn, &e);
    cu_body_prologue(st, fn, &e, &hoisted);
    clc_edit_after(st->arena, &e, f->body_open, offsets);
    st->instances[index].edits = e;
    /* a returned pointer: the space its return statements point into */
    if (f->returns_pointer) {
        cu_space returned = CU_UNKNOWN;
        for (size_t i = f->body_open + 1;
             i < f->body_close && returned == CU_UNKNOWN; ++i)
            if (cu_is(st, i, W_return) && !cu_punct(st, i + 1, P_SEMI))
                returned = cu_expr_space(
                    st, i + 1, cu_expression_end(st, i + 1, f->body_close));
        st->instances[index].return_space =
            (uint8_t)(returned == CU_UNKNOWN ? 0 : returned + 1);
    }
}
