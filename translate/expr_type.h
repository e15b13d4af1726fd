/*
 * Expression types (private to Kiln: the translation passes and their
 * tests).
 *
 * A rewrite that depends on what an operand is (a vector or a scalar, the
 * type an atomic's pointer points to, the address space a pointer points
 * into) asks here.  The typer reads the tokens of one expression with C's
 * precedence and the declarations clc_symbols_scan recorded; it answers
 * "unknown" (NULL) rather than guess, so a rewrite keeps its cautious
 * form where the program's types cannot be told (built-in functions'
 * results, CUDA's built-in variables, constructs it does not model).
 */
#ifndef KILN_CLC_EXPR_TYPE_H
#define KILN_CLC_EXPR_TYPE_H

#include "symbols.h"
#include "types.h"

/* The type of the expression in tokens [begin, end), NULL when it cannot
 * be told (a built-in function's result, a name the table does not know,
 * a construct the typer does not model).  Arrays decay to pointers into
 * their object's space. */
const clc_type *clc_expr_type(const clc_symbols *symbols, size_t begin,
                              size_t end);
/* 1 when the expression [begin, end) has a vector type, 0 when it has
 * another type, -1 when its type is unknown. */
int clc_expr_is_vector(const clc_symbols *symbols, size_t begin, size_t end);
/* The space the pointer value [begin, end) points into; DEFAULT when it
 * does not say or the typer cannot tell. */
clc_space clc_expr_space(const clc_symbols *symbols, size_t begin,
                         size_t end);
/* The first token of the postfix expression whose last token is `last`
 * (for `a.b[i].xy` at 'b' ... the 'a'); `last` itself when it cannot be
 * told. */
size_t clc_postfix_begin(const clc_symbols *symbols, size_t last);

#endif
