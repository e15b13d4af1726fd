/*
 * Conditional expressions on vectors: the ternary operator with a vector
 * condition selects per component (by the most significant bit, as
 * select() does), logical ! on a vector gives -1 where a component is 0,
 * and && / || combine comparisons component-wise.
 */

__kernel void vector_ternary(__global const int4 *a, __global const int4 *b,
                             __global int4 *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int4 x = a[i], y = b[i];
    __global int4 *r = out + 4 * i;
    r[0] = x > y ? x : y;                   /* component-wise maximum */
    r[1] = !x;                              /* -1 where x == 0 */
    r[2] = (x > 0) && (y > 0);              /* -1 / 0 per component */
    r[3] = (x < 0) || (y == 0) ? (int4)(5) : (int4)(-5);
}
