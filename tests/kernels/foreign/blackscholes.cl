// Black-Scholes option pricing; REAL chosen with -DREAL=float or double.
#ifndef REAL
#define REAL float
#endif
#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

static REAL cnd(REAL d)
{
    REAL k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    REAL cnd = RSQRT2PI * exp(-0.5f * d * d) *
               (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0 ? 1.0f - cnd : cnd;
}

__kernel void black_scholes(__global REAL *call, __global REAL *put,
                            __global const REAL *price,
                            __global const REAL *strike,
                            __global const REAL *years, REAL riskfree,
                            REAL volatility, unsigned int count)
{
    for (unsigned int i = get_global_id(0); i < count;
         i += get_global_size(0)) {
        REAL s = price[i], x = strike[i], t = years[i];
        REAL sqrt_t = sqrt(t);
        REAL d1 = (log(s / x) + (riskfree + 0.5f * volatility * volatility) * t) /
                  (volatility * sqrt_t);
        REAL d2 = d1 - volatility * sqrt_t;
        REAL expRT = exp(-riskfree * t);
        call[i] = s * cnd(d1) - x * expRT * cnd(d2);
        put[i] = x * expRT * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
    }
}
