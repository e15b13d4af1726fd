/*
 * CUDA C -> OpenCL C, the output: each item of the top level written in
 * order (an instance's header with its hidden parameters, its rewritten
 * body), the program's own kernels that size and initialise its
 * variables, and the #include lines the prelude stands for.
 */
#include "cuda_to_opencl_pass.h"

#include <stdlib.h>
#include <string.h>

/* ---- output --------------------------------------------------------------------------------------- */

static void cu_write_header(cu_state *st, clc_writer *w, size_t index)
{
    cu_instance *in = &st->instances[index];
    const cu_function *f = &st->functions[in->key.fn];
    clc_write_position(w, &st->tokens[f->name_token]);
    if (f->is_kernel) {
        clc_write_text(w, "__kernel void");
    } else {
        if (f->force_inline)
            clc_write_text(w, "static inline __attribute__((always_inline))");
        else if (f->no_inline)
            clc_write_text(w, "__attribute__((noinline))");
        clc_edits e;
        clc_edits_init(st->arena, &e, f->begin, f->name_token);
        cu_generic(st, &e, f->begin, f->name_token);
        for (size_t i = f->begin; i < f->name_token; ++i)
            if (cu_is(st, i, st->w_device_) || cu_is(st, i, st->w_host_) ||
                cu_is(st, i, st->w_forceinline_) || cu_is(st, i, st->w_noinline_) ||
                cu_is(st, i, W_static) || cu_is(st, i, W_inline) ||
                cu_is(st, i, W___inline__) || cu_is(st, i, W___inline) ||
                cu_is(st, i, W_extern))
                clc_edit_replace(&e, i, "");
        if (f->returns_pointer)
            clc_write_text(w, cu_space_word[in->return_space
                                                ? in->return_space - 1
                                                : CU_GLOBAL]);
        clc_write_range(w, &e, f->begin, f->name_token, 0);
    }
    clc_write_text(w, in->name);
    clc_write_text(w, "(");
    int first = 1;
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        if (!first)
            clc_write_text(w, ", ");
        first = 0;
        if (p->pointer)
            clc_write_text(w, cu_space_word[in->key.spaces[k]]);
        clc_write_range(w, &in->edits, p->begin, p->end, 0);
    }
    if (f->is_kernel)
        for (size_t k = 0; k < f->param_count; ++k)
            if (cu_param_takes_offset(st, &f->params[k])) {
                clc_write_text(w, cu_printf(st, "%sulong __kiln_offset_%zu",
                                           first ? "" : ", ", k));
                first = 0;
            }
    for (size_t h = 0; h < st->hidden_count; ++h) {
        if (!f->needs[h])
            continue;
        if (f->is_kernel && st->hidden[h].kind == CU_H_SHARED)
            continue; /* declared inside */
        if (!first)
            clc_write_text(w, ", ");
        first = 0;
        clc_write_text(w, cu_hidden_param(st, h, in->key.fn));
    }
    if (first)
        clc_write_text(w, "void");
    clc_write_text(w, ")");
}

void cu_write_item(cu_state *st, clc_writer *w, const cu_item *item)
{
    switch (item->kind) {
    case CU_ITEM_SKIP:
        return;
    case CU_ITEM_COPY:
    case CU_ITEM_STRUCT:
    case CU_ITEM_CONSTANT: {
        clc_edits e;
        clc_edits_init(st->arena, &e, item->begin, item->end);
        cu_generic(st, &e, item->begin, item->end);
        if (item->kind == CU_ITEM_CONSTANT) {
            for (size_t i = item->begin; i < item->end; ++i)
                if (cu_is(st, i, W_static) || cu_is(st, i, W_extern))
                    clc_edit_replace(&e, i, "");
            clc_edit_before(st->arena, &e, item->begin, "__constant ");
        }
        /* C++ names a struct by its tag, inside its own body too (struct
         * node { node *next; }): the typedef goes first where C allows
         * it (a struct's or union's, not an enum's) */
        int typedef_first = item->kind == CU_ITEM_STRUCT && item->tag >= 0 &&
                            !cu_is(st, item->begin, W_enum);
        const char *tag = NULL;
        if (item->kind == CU_ITEM_STRUCT && item->tag >= 0) {
            size_t at = item->begin + 1; /* the tag's token, to spell it */
            while (at < item->end && st->tokens[at].ident != item->tag)
                ++at;
            tag = cu_ident_text(st, item->tag);
            if (at < item->end && cu_opencl_keyword(st, at, item->tag))
                tag = cu_printf(st, "__kiln_id_%s", tag);
        }
        const char *tag_typedef =
            tag != NULL ? cu_printf(st, " typedef %s %s %s;",
                                    cu_spelling(st, item->begin), tag, tag)
                        : NULL;
        if (typedef_first)
            clc_write_text(w, tag_typedef);
        clc_write_range(w, &e, item->begin, item->end, 1);
        if (tag_typedef != NULL && !typedef_first)
            clc_write_text(w, tag_typedef);
        return;
    }
    case CU_ITEM_VARIABLE: {
        const cu_hidden *h = &st->hidden[item->hidden];
        if (h->init_begin == 0)
            return;
        clc_edits e;
        clc_edits_init(st->arena, &e, h->init_begin, h->init_end);
        cu_generic(st, &e, h->init_begin, h->init_end);
        clc_write_position(w, &st->tokens[h->name_token]);
        clc_write_text(w, cu_printf(st, "__constant %s __kiln_init_%s%s =",
                                   cu_hidden_type(st, item->hidden),
                                   cu_ident_text(st, h->name),
                                   cu_hidden_dims(st, item->hidden, 0)));
        clc_write_range(w, &e, h->init_begin, h->init_end, 1);
        clc_write_text(w, ";");
        return;
    }
    case CU_ITEM_FUNCTION: {
        for (size_t k = 0; k < st->instance_count; ++k) {
            if (st->instances[k].key.fn != item->fn)
                continue;
            const cu_function *f = &st->functions[item->fn];
            if (item->prototype || !f->defined) {
                cu_write_header(st, w, k);
                clc_write_text(w, ";");
                continue;
            }
            cu_write_header(st, w, k);
            clc_write_range(w, &st->instances[k].edits, f->body_open,
                           f->body_close + 1, 1);
        }
        return;
    }
    }
}

/* The kernels that size and initialise the variables' buffers. */
void cu_write_variable_kernels(cu_state *st, clc_buffer *out)
{
    if (st->variable_count == 0)
        return;
    clc_buffer_puts(out, "\n__kernel void " TRANSLATE_KERNEL_VARIABLE_SIZES
                         "(__global ulong *sizes)\n{\n");
    size_t initialised = 0;
    for (size_t h = 0; h < st->hidden_count; ++h) {
        const cu_hidden *item = &st->hidden[h];
        if (item->kind != CU_H_VARIABLE)
            continue;
        /* an array sized by its initializer (short q[] = {...}): the
         * initializer's size */
        if (item->init_begin != 0)
            clc_buffer_printf(out, "    sizes[%zu] = sizeof(__kiln_init_%s);\n",
                              item->variable, cu_ident_text(st, item->name));
        else
            clc_buffer_printf(out, "    sizes[%zu] = sizeof(%s%s);\n",
                              item->variable, cu_hidden_type(st, h),
                              cu_hidden_dims(st, h, 0));
        initialised += item->init_begin != 0;
    }
    clc_buffer_puts(out, "}\n");
    if (initialised == 0)
        return;
    clc_buffer_puts(out, "__kernel void " TRANSLATE_KERNEL_VARIABLE_INIT "(");
    size_t n = 0;
    for (size_t h = 0; h < st->hidden_count; ++h)
        if (st->hidden[h].kind == CU_H_VARIABLE && st->hidden[h].init_begin)
            clc_buffer_printf(out, "%s__global uchar *v%zu", n++ ? ", " : "", h);
    clc_buffer_puts(out, ")\n{\n");
    for (size_t h = 0; h < st->hidden_count; ++h) {
        const cu_hidden *item = &st->hidden[h];
        if (item->kind != CU_H_VARIABLE || item->init_begin == 0)
            continue;
        const char *name = cu_ident_text(st, item->name);
        clc_buffer_printf(out,
                          "    for (ulong i = 0; i < sizeof(__kiln_init_%s); ++i)\n"
                          "        v%zu[i] = ((__constant uchar *)&__kiln_init_%s)[i];\n",
                          name, h, name);
    }
    clc_buffer_puts(out, "}\n");
}

/* ---- includes --------------------------------------------------------------------------------------- */

/* Headers whose device-side content the prelude provides. */
static const char *const cu_provided_headers[] = {
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
    "device_launch_parameters.h", "device_functions.h", "math_functions.h",
    "vector_types.h", "vector_functions.h", "device_atomic_functions.h",
    "sm_20_atomic_functions.h", "sm_32_atomic_functions.h",
    "sm_60_atomic_functions.h", "stdio.h", "stdlib.h", "math.h", "stdint.h",
    "stddef.h", "stdbool.h", "float.h", "limits.h", "assert.h", "cstdio",
    "cstdlib", "cmath", "cstdint", "cstddef", "cfloat", "climits", "cassert",
    /* host-only: a whole .cu file's host code is left out anyway */
    "iostream", "vector", "string", "cstring", "string.h", "algorithm",
    "chrono", "ctime", "time.h", "memory", "numeric", "iomanip", "fstream",
    "sstream", "random", "functional", "utility", "helper_cuda.h",
    "helper_functions.h", "helper_string.h", "helper_timer.h",
    /* the C++ phase's (cxx_builtins.c: block groups and tiles, cg::reduce
     * and scans; cxx_half.c) */
    "cooperative_groups.h", "cooperative_groups/reduce.h",
    "cooperative_groups/scan.h", "cuda_fp16.h", "cuda_bf16.h",
};

/* Headers of CUDA libraries or features the pass refuses. */
static const char *const cu_refused_headers[] = {
    "cooperative_groups/", "cub/", "thrust/", "cuda_fp16.hpp", "cuda_bf16.hpp",
    "cuda_fp8", "curand", "mma.h", "cuda/", "sm_", "texture", "surface",
    "helper_math.h", "cufft", "cublas", "crt/",
};

/* Blanks #include lines of provided headers (the line count stays) and
 * refuses CUDA library headers; leaves other includes to the
 * preprocessor, which reports a file not found. */
char *cu_filter_includes(cu_state *st, const char *source, size_t length,
                         unsigned *refused_line, const char **refused,
                         unsigned *headers)
{
    char *text = clc_arena_alloc(st->arena, length + 1);
    memcpy(text, source, length);
    unsigned line = 1;
    for (size_t i = 0; i < length;) {
        size_t end = i;
        while (end < length && text[end] != '\n')
            ++end;
        size_t p = i;
        while (p < end && (text[p] == ' ' || text[p] == '\t'))
            ++p;
        if (p < end && text[p] == '#') {
            ++p;
            while (p < end && (text[p] == ' ' || text[p] == '\t'))
                ++p;
            if (end - p > 7 && memcmp(text + p, "include", 7) == 0) {
                p += 7;
                while (p < end && (text[p] == ' ' || text[p] == '\t'))
                    ++p;
                if (p < end && (text[p] == '<' || text[p] == '"')) {
                    char close = text[p] == '<' ? '>' : '"';
                    size_t q = p + 1;
                    while (q < end && text[q] != close)
                        ++q;
                    const char *name = clc_arena_strndup(st->arena, text + p + 1,
                                                         q - p - 1);
                    int provided = 0;
                    if (strcmp(name, "cuda_fp16.h") == 0)
                        *headers |= CLC_CUDA_FP16;
                    if (strcmp(name, "cuda_bf16.h") == 0)
                        *headers |= CLC_CUDA_BF16;
                    for (size_t k = 0; k < sizeof cu_provided_headers /
                                               sizeof cu_provided_headers[0]; ++k)
                        if (strcmp(name, cu_provided_headers[k]) == 0) {
                            memset(text + i, ' ', end - i);
                            provided = 1;
                        }
                    for (size_t k = 0; !provided && k < sizeof cu_refused_headers /
                                               sizeof cu_refused_headers[0]; ++k)
                        if (strncmp(name, cu_refused_headers[k],
                                    strlen(cu_refused_headers[k])) == 0 &&
                            *refused == NULL) {
                            *refused = name;
                            *refused_line = line;
                        }
                }
            }
        }
        /* a line continued by a backslash stays one line for the count */
        i = end + 1;
        ++line;
    }
    text[length] = '\0';
    return text;
}
