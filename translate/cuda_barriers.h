/*
 * CUDA's barriers on OpenCL: threads that exit early, and block votes
 * (private to Kiln: the CUDA C -> OpenCL C pass).
 *
 * CUDA lets a thread return before a __syncthreads() that the others
 * still reach: an exited thread counts as arrived.  OpenCL requires every
 * work-item of a work-group to reach every barrier (PoCL runs all of
 * them past it, and writes where the returned ones never would).  This
 * phase rewrites the preprocessed CUDA C tokens before the pass reads
 * them, so that a returned thread stays in step with the others without
 * doing anything:
 *
 *  - A function whose thread may return, in control flow that depends on
 *    the thread, before a barrier (directly or in a function it calls) is
 *    lowered: an `__kiln_active` flag, cleared by such a return, guards
 *    the statements between barriers (a forward goto past each run of
 *    them, so declarations keep their scope); barriers, block votes,
 *    calls of functions that synchronise, and what decides how often a
 *    barrier runs (conditions and loop headers that are the same in every
 *    thread of a block, and the local variables they read) run in every
 *    thread.  A function that synchronises and is called from a lowered
 *    one takes the caller's flag as a parameter of its own.
 *  - A kernel whose last statement is an `if` that only some threads
 *    enter and that synchronises (the others fall off the end) is lowered
 *    the same way: the others pass its barriers without doing anything.
 *  - `__syncthreads_count/and/or(p)` become calls of the prelude's
 *    __kiln_syncthreads_count/and/or, with a __shared__ counter the
 *    function declares; a returned thread counts as not voting.
 *  - Warp-synchronous code (stores through volatile pointers into shared
 *    memory, __syncwarp) runs in CUDA's lockstep order: lanes read, all
 *    threads meet, lanes write, all meet.
 *  - assert(c) reports its failure (see cuda_lower_barriers).
 *
 * What cannot be given CUDA's meaning this way is refused with the
 * construct and the line: in a lowered function, a barrier whose
 * reaching depends on the thread (under a condition on threadIdx or on
 * memory, in a loop whose trip count does, after a `break`/`continue`
 * only some threads take, in a `switch`), `goto`, and calls of
 * synchronising functions inside conditions or `?:`, `&&`, `||`.
 * Functions that need none of this are left exactly as written.
 */
#ifndef KILN_CUDA_BARRIERS_H
#define KILN_CUDA_BARRIERS_H

#include "lexer.h"
#include "translate.h" /* TRANSLATE_ASSERT_VARIABLE */

#include <stddef.h>

/* Rewrites the preprocessed tokens *tokens (*count of them, the EOF token
 * included) in place of the pass's input: *tokens and *count are replaced
 * by the lowered program's (new tokens carry the line of the code they
 * stand for), or left alone when nothing needs lowering.  A refusal fails
 * the translation through `failure` with *unsupported set.
 *
 * With `asserts` (the program does not define NDEBUG), each assert(c)
 * becomes a check that records the first failure (file, line, condition,
 * block and thread) in the __device__ variable TRANSLATE_ASSERT_VARIABLE
 * (translate.h), which the core reads after the launch.  Without, assert
 * is the prelude's, which compiles to nothing. */
void cuda_lower_barriers(clc_arena *arena, clc_interner *interner,
                         clc_failure *failure, volatile int *unsupported,
                         int asserts, clc_token **tokens, size_t *count);

#endif
