/*
 * Explicit conversions, convert_<type>[_sat][_<rounding>]: float to
 * integers with saturation (NaN -> 0, out of range -> the nearest limit)
 * in every rounding mode (_rte nearest even, _rtz toward zero, _rtp toward
 * +inf, _rtn toward -inf; the default to an integer is _rtz), integers to
 * float in every rounding mode (the default is _rte), integers to narrower
 * integers with and without saturation, and vector conversions.
 */

#define SAT_RESULTS 12

/* Any float, NaN and infinities included. */
__kernel void float_to_int_sat(__global const float *in, __global int *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float f = in[i];
    __global int *r = out + SAT_RESULTS * i;
    r[0] = convert_int_sat_rte(f);
    r[1] = convert_int_sat_rtz(f);
    r[2] = convert_int_sat_rtp(f);
    r[3] = convert_int_sat_rtn(f);
    r[4] = convert_int_sat(f);
    r[5] = (int)convert_uint_sat_rte(f);
    r[6] = (int)convert_uint_sat(f);
    r[7] = convert_uchar_sat(f);
    r[8] = convert_uchar_sat_rte(f);
    r[9] = convert_short_sat_rtn(f);
    r[10] = convert_char_sat(f);
    /* the 64-bit result folded into 32 bits: low word ^ high word */
    r[11] = (int)convert_long_sat_rte(f) ^ (int)(convert_long_sat_rte(f) >> 32);
}

#define ROUND_RESULTS 5

/* Floats well inside the int range: conversions without _sat. */
__kernel void float_to_int_rounding(__global const float *in, __global int *out,
                                    int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float f = in[i];
    __global int *r = out + ROUND_RESULTS * i;
    r[0] = convert_int_rte(f);
    r[1] = convert_int_rtz(f);
    r[2] = convert_int_rtp(f);
    r[3] = convert_int_rtn(f);
    r[4] = convert_int(f);
}

#define TO_FLOAT_RESULTS 6

__kernel void int_to_float(__global const int *in, __global const uint *uin,
                           __global float *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int k = in[i];
    uint u = uin[i];
    __global float *r = out + TO_FLOAT_RESULTS * i;
    r[0] = convert_float(k);
    r[1] = convert_float_rtz(k);
    r[2] = convert_float_rtp(k);
    r[3] = convert_float_rtn(k);
    r[4] = convert_float(u);
    r[5] = convert_float_rtz(u);
}

#define NARROW_RESULTS 10

__kernel void int_to_narrow(__global const int *in, __global const uint *uin,
                            __global const long *lin, __global int *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int k = in[i];
    uint u = uin[i];
    long l = lin[i];
    __global int *r = out + NARROW_RESULTS * i;
    r[0] = convert_uchar_sat(k);
    r[1] = convert_char_sat(k);
    r[2] = convert_ushort_sat(k);
    r[3] = convert_short_sat(k);
    r[4] = (int)convert_uint_sat(k);
    r[5] = convert_int_sat(u);
    r[6] = convert_uchar(k);        /* modulo 256 */
    r[7] = convert_char(k);         /* low byte, sign-extended back */
    r[8] = convert_int_sat(l);
    r[9] = convert_int(l);          /* low 32 bits */
}

__kernel void vector_conversions(__global const float4 *fin, __global const int4 *iin,
                                 __global int4 *iout, __global uchar4 *bout,
                                 __global float4 *fout, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 f = fin[i];
    int4 k = iin[i];
    iout[2 * i] = convert_int4_sat_rte(f);
    iout[2 * i + 1] = convert_int4_rtn(clamp(f, -1.0e9f, 1.0e9f));
    bout[2 * i] = convert_uchar4_sat(k);
    bout[2 * i + 1] = convert_uchar4_sat_rtp(f);
    fout[i] = convert_float4(k);
}
