/*
 * Integer built-ins, exact: abs, abs_diff, min, max, clamp, mul_hi,
 * mad24, mul24, rotate, popcount, clz, add_sat, sub_sat, hadd, rhadd,
 * mad_hi, mad_sat, on int and uint (and two on int4).
 * a, b are any ints; c is a 24-bit signed value and d in [-127, 127], so
 * that the 24-bit products fit in 32 bits; s is any rotate count.
 */

#define INT_RESULTS 18
#define UINT_RESULTS 14

__kernel void int_builtins(__global const int *as, __global const int *bs,
                           __global const int *cs, __global const int *ds,
                           __global const int *ss, __global int *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int a = as[i], b = bs[i], c = cs[i], d = ds[i], s = ss[i];
    __global int *r = out + INT_RESULTS * i;
    r[0] = (int)abs(a);            /* abs(int) is a uint */
    r[1] = (int)abs_diff(a, b);
    r[2] = min(a, b);
    r[3] = max(a, b);
    r[4] = clamp(a, min(b, c), max(b, c));
    r[5] = mul_hi(a, b);
    r[6] = mad24(c, d, a >> 2);
    r[7] = mul24(c, d);
    r[8] = rotate(a, s);
    r[9] = popcount(a);
    r[10] = clz(a);
    r[11] = add_sat(a, b);
    r[12] = sub_sat(a, b);
    r[13] = hadd(a, b);
    r[14] = rhadd(a, b);
    r[15] = mad_hi(a, b, c);
    r[16] = mad_sat(c, d, a);
    r[17] = min(a, 5) + max(b, -5);   /* scalar second argument */
}

__kernel void uint_builtins(__global const uint *as, __global const uint *bs,
                            __global const uint *cs, __global const uint *ss,
                            __global uint *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uint a = as[i], b = bs[i], c = cs[i], s = ss[i];
    __global uint *r = out + UINT_RESULTS * i;
    r[0] = abs(a);
    r[1] = min(a, b);
    r[2] = max(a, b);
    r[3] = mul_hi(a, b);
    r[4] = mad24(c & 0xFFFFFFu, b & 0xFFu, a);  /* wraps: unsigned */
    r[5] = mul24(c & 0xFFFFFFu, a & 0xFFu);
    r[6] = rotate(a, s);
    r[7] = popcount(a);
    r[8] = clz(a);
    r[9] = add_sat(a, b);
    r[10] = sub_sat(a, b);
    r[11] = hadd(a, b);
    r[12] = rhadd(a, b);
    r[13] = clamp(a, min(b, c), max(b, c));
}

__kernel void int4_builtins(__global const int4 *as, __global const int4 *bs,
                            __global int4 *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int4 a = as[i], b = bs[i];
    out[3 * i] = add_sat(a, b);
    out[3 * i + 1] = convert_int4(popcount(a)) - clz(b);
    out[3 * i + 2] = clamp(a, -1000, 1000);
}
