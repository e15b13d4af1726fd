/*
 * CUDA C -> OpenCL C: refusals per kernel.
 *
 * A construct the translation cannot express faithfully, met while a
 * function is read, scanned or written for an address space, refuses that
 * function and every kernel that reaches it through its calls, not the
 * program: the file's other kernels are translated, and each refused one
 * is listed with its refusal (the construct and the line), which is what
 * the host gets when it asks for that kernel.  A program none of whose
 * kernels is left fails as a whole with the first refusal, as does one
 * whose signatures are only read.  A wrong program (a syntax error, a
 * kernel that returns a value) still fails as a whole.
 */
#include "cuda_to_opencl_pass.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

int cu_try(cu_state *st, cu_try_fn fn, void *arg, size_t function)
{
    jmp_buf saved;
    memcpy(saved, st->failure->unwind, sizeof saved);
    if (setjmp(st->failure->unwind) == 0) {
        fn(st, arg);
        memcpy(st->failure->unwind, saved, sizeof saved);
        return 1;
    }
    memcpy(st->failure->unwind, saved, sizeof saved);
    /* not a refusal: the program's own error, the whole program's */
    if (!*st->unsupported || st->failure->out_of_memory ||
        st->failure->message == NULL)
        longjmp(st->failure->unwind, 1);
    cu_function *f = &st->functions[function];
    if (f->refusal == NULL) {
        f->refusal = clc_arena_strndup(st->arena, st->failure->message,
                                       strlen(st->failure->message));
        f->refusal_line = st->failure->line;
    }
    free(st->failure->message);
    st->failure->message = NULL;
    st->failure->line = 0;
    *st->unsupported = 0;
    return 0;
}

/* Fails the program with function f's refusal. */
static CLC_NORETURN void cu_refuse_program(cu_state *st, const cu_function *f)
{
    *st->unsupported = 1;
    clc_fail(st->failure, -1, f->refusal_line, "%s", f->refusal);
}

void cu_refuse_any(cu_state *st)
{
    for (size_t k = 0; k < st->function_count; ++k)
        if (st->functions[k].refusal != NULL)
            cu_refuse_program(st, &st->functions[k]);
}

size_t cu_refuse_kernels(cu_state *st)
{
    /* a refusal goes from each callee to its callers, to a fixed point */
    const cu_function **reached =
        clc_arena_alloc(st->arena, (st->function_count + 1) * sizeof *reached);
    for (size_t k = 0; k < st->function_count; ++k)
        reached[k] = st->functions[k].refusal ? &st->functions[k] : NULL;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            const cu_function *f = &st->functions[k];
            for (size_t c = 0; reached[k] == NULL && c < f->call_count; ++c)
                if (reached[f->calls[c].callee] != NULL) {
                    reached[k] = reached[f->calls[c].callee];
                    changed = 1;
                }
        }
    }
    size_t left = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        cu_function *f = &st->functions[k];
        if (!f->is_kernel)
            continue;
        if (reached[k] == NULL) {
            left += f->defined != 0;
            continue;
        }
        if (f->refusal == NULL) {
            f->refusal = reached[k]->refusal;
            f->refusal_line = reached[k]->refusal_line;
        }
    }
    if (left == 0)
        cu_refuse_any(st);
    return left;
}

int cu_export_refusals(cu_state *st, cuda_to_opencl_result *out)
{
    size_t refused = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        refused += st->functions[k].is_kernel &&
                   st->functions[k].refusal != NULL;
    if (refused == 0)
        return 0;
    out->refused = calloc(refused, sizeof *out->refused);
    if (out->refused == NULL)
        return -1;
    for (size_t k = 0; k < st->function_count; ++k) {
        const cu_function *f = &st->functions[k];
        if (!f->is_kernel || f->refusal == NULL)
            continue;
        cuda_refused_kernel *to = &out->refused[out->refused_count++];
        size_t n = strlen(f->refusal);
        to->message = malloc(n + 1);
        if (to->message == NULL)
            return -1;
        memcpy(to->message, f->refusal, n + 1);
        to->line = f->refusal_line;
        const char *name = cu_ident_text(st, f->name);
        n = strlen(name) < sizeof to->name - 1 ? strlen(name)
                                               : sizeof to->name - 1;
        memcpy(to->name, name, n);
        to->name[n] = '\0';
    }
    return 0;
}
