/*
 * Kiln CUDA backend: the prelude NVRTC compiles before OpenCL C translated
 * by opencl_to_cuda.c (given to NVRTC as the header "kiln_cl_prelude.h").
 *
 * Contract with the translator (opencl_to_cuda.c), in short:
 *  - C++17, no system headers; every name starts with kl_ / KL_ / __kiln_,
 *    except the OpenCL scalar typedefs uchar ushort uint ulong (and intptr_t
 *    uintptr_t, which NVRTC lacks).  No macro may capture user identifiers.
 *  - KL_FN functions are __host__ __device__ (testable on the CPU with nvcc);
 *    atomics, work-item functions, barriers are __device__ only.
 *  - half -> kl_half (2-byte storage); event_t -> kl_event_t (int).
 *  - <scalar>N -> kl_<scalar>N, a typedef of kl_v<T, N>: alignment = size,
 *    N=3 has a padding member w; members x y z w s4..s7 s8 s9 sa..sf; trivial
 *    default constructor, implicit constexpr splat from any arithmetic scalar.
 *    kl_vec<T,N>::type, kl_elem_t<V>, kl_width<V>::value, kl_at(v, i).
 *  - .s0.. become .x..; other swizzle chains become .kl_swc<C...>(): codes
 *    -1 lo, -2 hi, -3 even, -4 odd (a 3-list is padded with index 3 first),
 *    100+k i1..ik an explicit swizzle.  One component: T& on a non-const
 *    lvalue, else a value; several: a proxy (converts to the vector, takes =,
 *    compound assignments, kl_swc) on a non-const lvalue, else a value.
 *  - Vector operators component-wise with OpenCL semantics: comparisons, !,
 *    && || give -1/0 in the signed type of the element's size; shift counts
 *    are masked; vector-vector forms are non-templates (so proxies convert),
 *    vector-scalar forms are templates on the scalar.
 *  - (T)(a, b, ...) -> kl_make<T>(a, b, ...) (constexpr, flattens vectors).
 *  - convert_T[_sat][_rtX] -> kl_convert<T, SAT, MODE> (MODE 0 default,
 *    1 rte, 2 rtz, 3 rtp, 4 rtn); as_T -> kl_as<T> (bit copy).
 *  - vloadN/vstoreN -> kl_vload<N>/kl_vstore<N>; vload[a]_half[N] ->
 *    kl_vload[a]_half<N>; vstore[a]_half[N][_rtX] -> kl_vstore[a]_half<N, MODE>.
 *  - Built-in f -> kl_f; vec_step(expr) -> kl_vec_step(expr).
 *  - Non-literal shift counts: a << kl_shift_count(b) (kl_shc<T>), masked to
 *    the left operand's (promoted) element width.
 *  - c ? a : b with a possible vector c -> kl_tern(c, [&]{a}, [&]{b}).
 *  - kl_dynamic_smem: dynamic shared memory, __local kernel parameters are
 *    offsets into it.  __kiln_huge_valf, __kiln_huge_val, __kiln_nanf.
 *  - Marker lines "@section NAME" (in a comment of their own) cut the header
 *    into sections; NVRTC gets the text outside them and only the sections
 *    whose names the translation uses (prelude_select.c).  A name belongs
 *    to the section where it first appears in code, so every name is
 *    declared before any use, in templates too, and #if tests only macros
 *    of the part above the first section.  A name ending in '_' is taken
 *    for a prefix macros paste onto (kl_native_): the names it begins
 *    belong to its section, so a helper is never named like another name's
 *    beginning (kl_vload_n, not kl_vload_, beside kl_vload_half).  The
 *    sections vecN hold the width-N types, and a program gets those of the
 *    widths it makes vectors of (prelude_select.c).
 */
#ifndef KILN_CLC_PRELUDE_CUH
#define KILN_CLC_PRELUDE_CUH

#define KL_FN __host__ __device__ inline
#define KL_CFN __host__ __device__ constexpr inline
#define KL_DFN __device__ inline
/* device code or the host (the KL_FN functions also run on the host) */
#ifdef __CUDA_ARCH__
#define KL_DEV 1
#else
#define KL_DEV 0
#endif

/* ---- scalar types ------------------------------------------------------ */

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#ifdef __CUDACC_RTC__
typedef long intptr_t; /* NVRTC has size_t and ptrdiff_t, not these */
typedef unsigned long uintptr_t;
#endif
struct kl_half { unsigned short bits; };
typedef int kl_event_t;
/* HUGE_VALF, HUGE_VAL, NAN as the translator's preprocessor leaves them */
static constexpr float __kiln_huge_valf = __builtin_bit_cast(float, 0x7f800000u);
static constexpr double __kiln_huge_val = __builtin_bit_cast(double, 0x7ff0000000000000ull);
static constexpr float __kiln_nanf = __builtin_bit_cast(float, 0x7fc00000u);

/* ---- traits ------------------------------------------------------------- */

/* trait values: static members of these few classes only (an enum constant
 * would meet the operator templates, and with -default-device every static
 * constexpr member of a class becomes a __device__ variable) */
template <bool B> struct kl_bool_c { static constexpr bool value = B; };
template <int N> struct kl_int_c { static constexpr int value = N; };
template <bool B, class T = void> struct kl_enable_if {};
template <class T> struct kl_enable_if<true, T> { typedef T type; };
template <bool B, class T = void>
using kl_enable_if_t = typename kl_enable_if<B, T>::type;
template <bool B, class T, class F> struct kl_cond { typedef T type; };
template <class T, class F> struct kl_cond<false, T, F> { typedef F type; };
template <bool B, class T, class F>
using kl_cond_t = typename kl_cond<B, T, F>::type;
template <class A, class B> struct kl_is_same : kl_bool_c<false> {};
template <class A> struct kl_is_same<A, A> : kl_bool_c<true> {};
template <class T> struct kl_remove_cv { typedef T type; };
template <class T> struct kl_remove_cv<const T> { typedef T type; };
template <class T> struct kl_remove_cv<volatile T> { typedef T type; };
template <class T> struct kl_remove_cv<const volatile T> { typedef T type; };
template <class T> struct kl_remove_ref { typedef T type; };
template <class T> struct kl_remove_ref<T &> { typedef T type; };
template <class T> struct kl_remove_ref<T &&> { typedef T type; };
template <class T>
using kl_decay_t = typename kl_remove_cv<typename kl_remove_ref<T>::type>::type;
/* identity: keeps a parameter out of template argument deduction */
template <class T> struct kl_id { typedef T type; };
template <class T> using kl_id_t = typename kl_id<T>::type;
template <class T> T &&kl_declval();

/* what kind of scalar T is, cv and references peeled off first: one
 * class per type, so each trait below costs NVRTC one instantiation (they
 * are asked of every type in an overload resolution with vectors).
 * Typedefs, not values: with -default-device every static member value of
 * a new class becomes a __device__ variable in the PTX. */
template <class T> struct kl_kind_ {
    typedef kl_bool_c<false> is_int, is_fp;
    typedef kl_bool_c<__is_enum(T)> is_scalar;
};
template <class T> struct kl_kind_<const T> : kl_kind_<T> {};
template <class T> struct kl_kind_<volatile T> : kl_kind_<T> {};
template <class T> struct kl_kind_<const volatile T> : kl_kind_<T> {};
template <class T> struct kl_kind_<T &> : kl_kind_<T> {};
template <class T> struct kl_kind_<T &&> : kl_kind_<T> {};
struct kl_int_kind_ { typedef kl_bool_c<true> is_int, is_scalar; typedef kl_bool_c<false> is_fp; };
struct kl_fp_kind_ { typedef kl_bool_c<false> is_int; typedef kl_bool_c<true> is_fp, is_scalar; };
#define KL_INT_TYPE(T) \
    template <> struct kl_kind_<T> : kl_int_kind_ {};
KL_INT_TYPE(bool) KL_INT_TYPE(char) KL_INT_TYPE(signed char)
KL_INT_TYPE(unsigned char) KL_INT_TYPE(short) KL_INT_TYPE(unsigned short)
KL_INT_TYPE(int) KL_INT_TYPE(unsigned int) KL_INT_TYPE(long)
KL_INT_TYPE(unsigned long) KL_INT_TYPE(long long)
KL_INT_TYPE(unsigned long long)
#undef KL_INT_TYPE
template <> struct kl_kind_<float> : kl_fp_kind_ {};
template <> struct kl_kind_<double> : kl_fp_kind_ {};
template <class T> struct kl_is_int : kl_kind_<T>::is_int {};
template <class T> struct kl_is_fp : kl_kind_<T>::is_fp {};
template <class T> struct kl_is_arith : kl_bool_c<(kl_kind_<T>::is_int::value || kl_kind_<T>::is_fp::value)> {};
/* what may be splat into a vector: arithmetic types and enumerations */
template <class T> struct kl_is_scalar : kl_kind_<T>::is_scalar {};
template <class T> struct kl_is_signed : kl_bool_c<(kl_is_arith<T>::value && (kl_decay_t<T>)(-1) < (kl_decay_t<T>)0)> {};

/* integer types by size: OpenCL's long is 64 bits, like CUDA's long (LP64) */
template <int S> struct kl_int_of;
template <> struct kl_int_of<1> { typedef signed char s; typedef unsigned char u; };
template <> struct kl_int_of<2> { typedef short s; typedef unsigned short u; };
template <> struct kl_int_of<4> { typedef int s; typedef unsigned int u; };
template <> struct kl_int_of<8> { typedef long s; typedef unsigned long u; };
template <int S> using kl_sint_t = typename kl_int_of<S>::s;
template <int S> using kl_uint_t = typename kl_int_of<S>::u;
template <class T> using kl_unsigned_t = kl_uint_t<(int)sizeof(T)>;

/* usual arithmetic conversions, except that a type mixed with itself stays */
template <class A, class B> struct kl_common {
    typedef decltype(kl_declval<A>() + kl_declval<B>()) type;
};
template <class A> struct kl_common<A, A> { typedef A type; };
template <class A, class B>
using kl_common_t = typename kl_common<kl_decay_t<A>, kl_decay_t<B>>::type;
/* the floating type mixed scalar arguments of a float function use */
template <class... A> struct kl_fpc {
    typedef kl_cond_t<(kl_is_same<kl_decay_t<A>, double>::value || ...), double, float> type;
};
template <class... A> using kl_fpc_t = typename kl_fpc<A...>::type;

/* index sequences, written out for the widths vectors have */
template <int... I> struct kl_iseq {};
template <int N> struct kl_iseq_for_;
template <> struct kl_iseq_for_<1> { typedef kl_iseq<0> type; };
template <> struct kl_iseq_for_<2> { typedef kl_iseq<0, 1> type; };
template <> struct kl_iseq_for_<3> { typedef kl_iseq<0, 1, 2> type; };
template <> struct kl_iseq_for_<4> { typedef kl_iseq<0, 1, 2, 3> type; };
template <> struct kl_iseq_for_<8> { typedef kl_iseq<0, 1, 2, 3, 4, 5, 6, 7> type; };
template <> struct kl_iseq_for_<16> {
    typedef kl_iseq<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15> type;
};
template <int N> using kl_iseq_for = typename kl_iseq_for_<N>::type;

/* The vector forms of scalar built-ins (KL_LIFT and the others): nothing
 * unless the program has vectors, whose section vecbase defines them
 * again.  Without vectors no argument can be one, and a program that
 * calls sqrt or min does not read the vector machinery. */
#define KL_LIFT(NAME)
#define KL_LIFT_NC(NAME)
#define KL_LIFT_REL(NAME)

/* @section vecbase */
/* ---- vector traits: what the functions below need of vectors -------------- */

/* The templates here cost NVRTC little; the vector types themselves, their
 * operators and swizzles (section vectors) are included only for programs
 * that use vectors.  Nothing here makes a vector of a type the program does
 * not name (vloadN does: it is in section vectors). */
struct kl_mk_tag {}; /* selects the member-wise constructor */
/* builds V from the flattened components of a... */
template <class V, int... I, class... A>
KL_CFN V kl_make_(kl_iseq<I...>, const A &...a);
template <class T, int N> struct kl_v;
template <class T, int N> struct kl_vec;
template <class T> struct kl_vec<T, 1> { typedef T type; };

/* swizzle helpers, defined below, used by the member templates */
template <int N, int... C, class V> KL_FN decltype(auto) kl_swz_lv(V &v);
template <int N, int... C, class V> KL_CFN auto kl_swz_rv(const V &v);

template <class T> struct kl_shc { T v; }; /* a shift count (see kl_shift_count) */
template <class V, class T> KL_CFN V kl_shc_vec(kl_shc<T> c);
/* the proxy of a multi-component swizzle, defined with the vector types */
template <class V, class R, int... I> struct kl_swp;

template <class T, class = void> struct kl_is_vec_ : kl_bool_c<false> {
    typedef kl_int_c<1> width;
    typedef T elem;
};
template <class T>
struct kl_is_vec_<T, decltype((void)T::kl_width_value)> : kl_bool_c<true> {
    typedef kl_int_c<(int)T::kl_width_value> width;
    typedef typename T::kl_elem_type elem;
};
template <class T> struct kl_is_vec : kl_is_vec_<kl_decay_t<T>> {};
/* width of a vector type (scalars: 1) and its element type */
template <class V> struct kl_width : kl_is_vec_<kl_decay_t<V>>::width {};
template <class V> using kl_elem_t = typename kl_is_vec_<kl_decay_t<V>>::elem;
/* the comparison result type: signed integers of the element's size */
template <class V>
using kl_cmp_vt = typename kl_vec<kl_sint_t<(int)sizeof(kl_elem_t<V>)>, kl_width<V>::value>::type;

/* component I by name, at compile time (one function, not a class per
 * index: NVRTC instantiates this for every component a program touches) */
template <int I, class V> KL_CFN auto &kl_get(V &v) {
    if constexpr (I < 4) {
        if constexpr (I == 0) return v.x;
        else if constexpr (I == 1) return v.y;
        else if constexpr (I == 2) return v.z;
        else return v.w;
    } else if constexpr (I < 8) {
        if constexpr (I == 4) return v.s4;
        else if constexpr (I == 5) return v.s5;
        else if constexpr (I == 6) return v.s6;
        else return v.s7;
    } else if constexpr (I < 12) {
        if constexpr (I == 8) return v.s8;
        else if constexpr (I == 9) return v.s9;
        else if constexpr (I == 10) return v.sa;
        else return v.sb;
    } else {
        if constexpr (I == 12) return v.sc;
        else if constexpr (I == 13) return v.sd;
        else if constexpr (I == 14) return v.se;
        else return v.sf;
    }
}
/* component by run-time index (members are contiguous) */
template <class V, kl_enable_if_t<kl_is_vec<V>::value, int> = 0>
KL_FN auto &kl_at(V &v, int i) { return (&v.x)[i]; }

/* proxies read as their vector; everything else passes through */
template <class T> struct kl_is_proxy : kl_bool_c<false> {};
template <class V, class R, int... I> struct kl_is_proxy<kl_swp<V, R, I...>> : kl_bool_c<true> {};
template <class A> KL_CFN const A &kl_val(const A &a) { return a; }
template <class V, class R, int... I>
KL_FN R kl_val(const kl_swp<V, R, I...> &p) {
    return p.kl_value();
}
template <class A> using kl_val_t = kl_decay_t<decltype(kl_val(kl_declval<const A &>()))>;
template <class A> struct kl_is_vecish : kl_bool_c<(kl_is_vec<A>::value || kl_is_proxy<kl_decay_t<A>>::value)> {};
template <class... A> struct kl_any_vec : kl_bool_c<((false || ... || kl_is_vecish<A>::value))> {};


/* ---- vector literals ---------------------------------------------------- */

/* component I of x; a scalar is its own every component */
template <int I, class X> KL_CFN auto kl_comp(const X &x) {
    if constexpr (kl_is_vec<X>::value)
        return kl_get<I>(x);
    else
        return x;
}
/* component I of the flattened argument list */
template <int I> KL_CFN int kl_flat() { return 0; }
template <int I, class A0, class... A>
KL_CFN auto kl_flat(const A0 &a0, const A &...a) {
    if constexpr (I < kl_width<A0>::value)
        return kl_comp<I>(a0);
    else
        return kl_flat<I - kl_width<A0>::value>(a...);
}
template <class V, int... I, class... A>
KL_CFN V kl_make_(kl_iseq<I...>, const A &...a) {
    return V(kl_mk_tag{}, (kl_elem_t<V>)kl_flat<I>(a...)...);
}
/* any mix of scalars and vectors whose widths add up */
template <class V, class... A> KL_CFN V kl_vlit(const A &...a) {
    constexpr int total = (0 + ... + kl_width<kl_val_t<A>>::value);
    static_assert(total == kl_width<V>::value ||
                      (sizeof...(A) == 1 && total == 1),
                  "vector literal: the components do not add up to the "
                  "vector's width (nor is it a single scalar)");
    if constexpr (sizeof...(A) == 1 && total == 1)
        return V((kl_elem_t<V>)kl_flat<0>(a...));
    else
        return kl_make_<V>(kl_iseq_for<kl_width<V>::value>{}, kl_val(a)...);
}
template <class V, class... A> KL_CFN V kl_make(const A &...a) {
    static_assert(kl_is_vec<V>::value, "kl_make: not a vector type");
    /* N scalars, the common literal: 4 M instructions fewer for NVRTC
     * (through kl_val as the general path: without it NVVM computed the
     * indices around vector_literals.cl's literals in 64 bits) */
    if constexpr (sizeof...(A) == kl_width<V>::value && (true && ... && kl_is_scalar<A>::value))
        return V(kl_mk_tag{}, (kl_elem_t<V>)kl_val(a)...);
    else
        return kl_vlit<V>(a...);
}

/* ---- element-wise lifting of scalar functions to vectors ------------------- */

template <class... A> struct kl_first_vec { typedef void type; };
template <class A, class... B> struct kl_first_vec<A, B...> {
    typedef kl_cond_t<kl_is_vec<A>::value, kl_decay_t<A>,
                      typename kl_first_vec<B...>::type> type;
};
/* component I of argument x; a scalar is broadcast, converted to the element
 * type E of the first vector argument when CV and both are integer or both
 * floating (so max(v, 0) or clamp(f4, 0.f, 1.0) pick the element's overload) */
template <int I, class E, bool CV, class X> KL_CFN auto kl_bc(const X &x) {
    if constexpr (kl_is_vec<X>::value)
        return kl_get<I>(x);
    else if constexpr (CV && kl_is_fp<X>::value == kl_is_fp<E>::value)
        return (E)x;
    else
        return x;
}
template <int I, class E, bool CV, class F, class... A>
KL_CFN auto kl_lift_at(F f, const A &...a) { return f(kl_bc<I, E, CV>(a)...); }
template <bool CV, class F, int... I, class... A>
KL_CFN auto kl_lift_(kl_iseq<I...>, F f, const A &...a) {
    typedef kl_elem_t<typename kl_first_vec<A...>::type> E;
    typedef decltype(kl_lift_at<0, E, CV>(f, a...)) RE;
    typedef typename kl_vec<RE, (int)sizeof...(I)>::type R;
    return R(kl_mk_tag{}, kl_lift_at<I, E, CV>(f, a...)...);
}
template <bool CV = true, class F, class... A>
KL_CFN auto kl_lift(F f, const A &...a) {
    typedef typename kl_first_vec<kl_val_t<A>...>::type V0;
    constexpr int n = kl_width<V0>::value;
    static_assert(((!kl_is_vec<kl_val_t<A>>::value || kl_width<kl_val_t<A>>::value == n) && ...),
                  "vector arguments of different widths");
    return kl_lift_<CV>(kl_iseq_for<n>{}, f, kl_val(a)...);
}
#define KL_VEC_T(...) template <class... A, kl_enable_if_t<kl_any_vec<A...>::value, int> = 0>
/* NAME(vectors and scalars...) applies the scalar NAME component-wise */
#undef KL_LIFT
#undef KL_LIFT_NC
#undef KL_LIFT_REL
#define KL_LIFT(NAME)                                                         \
    KL_VEC_T() KL_CFN auto NAME(const A &...a) {                              \
        return kl_lift([](auto... e) { return NAME(e...); }, a...);           \
    }
/* the same without converting scalar arguments (ldexp(v, int), ...) */
#define KL_LIFT_NC(NAME)                                                      \
    KL_VEC_T() KL_CFN auto NAME(const A &...a) {                              \
        return kl_lift<false>([](auto... e) { return NAME(e...); }, a...);    \
    }
/* relational: scalar 1/0 becomes -1/0 in the element-sized signed type */
#define KL_LIFT_REL(NAME)                                                     \
    KL_VEC_T() KL_CFN auto NAME(const A &...a) {                              \
        return kl_lift(                                                       \
            [](auto e0, auto... e) {                                          \
                return (kl_sint_t<(int)sizeof(e0)>)-NAME(e0, e...);           \
            },                                                                \
            a...);                                                            \
    }

/* @section convert */
/* ---- conversions ----------------------------------------------------------- */

template <class T> KL_CFN T kl_int_max() {
    return kl_is_signed<T>::value ? (T)(kl_unsigned_t<T>(-1) >> 1) : (T)-1;
}
template <class T> KL_CFN T kl_int_min() {
    return kl_is_signed<T>::value ? (T)(-kl_int_max<T>() - 1) : (T)0;
}
/* integer -> integer, clamped to T's range */
template <class T, class S> KL_CFN T kl_sat_int(S x) {
    if (kl_is_signed<S>::value && x < 0) {
        if (!kl_is_signed<T>::value)
            return 0;
        return (long long)x < (long long)kl_int_min<T>() ? kl_int_min<T>() : (T)x;
    }
    return (unsigned long long)x > (unsigned long long)kl_int_max<T>() ? kl_int_max<T>() : (T)x;
}


/* float/double -> integer T with rounding MODE (0 = rtz), saturated, NaN -> 0
 * (PTX cvt from floating point to integer saturates and maps NaN to 0, so
 * the intrinsics give the _sat result for 32/64-bit destinations) */
template <class T, int MODE, class S> KL_FN T kl_fp_to_int(S x) {
#if KL_DEV
    constexpr bool d = kl_is_same<S, double>::value;
    constexpr int m = MODE == 0 ? 2 : MODE;
#define KL_CVT(P)                                                             \
    (m == 1 ? (d ? __double2##P##_rn(x) : __float2##P##_rn(x))               \
     : m == 2 ? (d ? __double2##P##_rz(x) : __float2##P##_rz(x))             \
     : m == 3 ? (d ? __double2##P##_ru(x) : __float2##P##_ru(x))             \
              : (d ? __double2##P##_rd(x) : __float2##P##_rd(x)))
    /* 64-bit cvt maps NaN to 0x8000000000000000 on sm_90 (measured on
     * an H100): OpenCL's _sat wants 0 */
    if constexpr (sizeof(T) == 8)
        if (x != x)
            return (T)0;
    if constexpr (sizeof(T) == 8 && kl_is_signed<T>::value)
        return (T)KL_CVT(ll);
    else if constexpr (sizeof(T) == 8)
        return (T)KL_CVT(ull);
    else if constexpr (kl_is_same<T, unsigned int>::value)
        return (T)KL_CVT(uint);
    else
        return kl_sat_int<T>(KL_CVT(int));
#undef KL_CVT
#else
    if (x != x)
        return 0;
    S r = MODE == 1 ? rint(x) : MODE == 3 ? ceil(x) : MODE == 4 ? floor(x) : trunc(x);
    if (r <= (S)kl_int_min<T>())
        return kl_int_min<T>();
    /* 2^bits (or 2^(bits-1)) is exact in S; the max itself may not be */
    if (r >= (S)2 * (S)(kl_int_max<T>() / 2 + 1))
        return kl_int_max<T>();
    return (T)r;
#endif
}
#if !KL_DEV
/* host reference for directed rounding of integer/double -> float/double:
 * round to nearest, then step by one ulp (long double holds the value exactly) */
template <class T, int MODE, class S> inline T kl_host_round(S x) {
    T f = (T)x;
    long double lx = (long double)x, lf = (long double)f;
    if ((MODE == 3 && lf < lx) || (MODE == 2 && lx < 0 && lf < lx))
        f = nextafter(f, (T)__kiln_huge_val);
    else if ((MODE == 4 && lf > lx) || (MODE == 2 && lx >= 0 && lf > lx))
        f = nextafter(f, -(T)__kiln_huge_val);
    return f;
}
#endif
/* integer or double -> float/double T with rounding MODE (0 = rte) */
template <class T, int MODE, class S> KL_FN T kl_to_fp(S x) {
    if constexpr (MODE <= 1 || kl_is_same<T, S>::value ||
                  (kl_is_same<S, float>::value) ||
                  (kl_is_same<T, double>::value && sizeof(S) <= 4)) {
        return (T)x; /* exact, or round to nearest */
    } else {
#if KL_DEV
        constexpr bool f = kl_is_same<T, float>::value;
#define KL_CVR(IN, P)                                                         \
    (MODE == 2 ? IN##P##_rz(x) : MODE == 3 ? IN##P##_ru(x) : IN##P##_rd(x))
        if constexpr (kl_is_same<S, double>::value)
            return KL_CVR(__double2, float);
        else if constexpr (sizeof(S) == 8 && kl_is_signed<S>::value)
            return f ? KL_CVR(__ll2, float) : KL_CVR(__ll2, double);
        else if constexpr (sizeof(S) == 8)
            return f ? KL_CVR(__ull2, float) : KL_CVR(__ull2, double);
        else if constexpr (kl_is_signed<S>::value)
            return KL_CVR(__int2, float);
        else
            return KL_CVR(__uint2, float);
#undef KL_CVR
#else
        return kl_host_round<T, MODE>(x);
#endif
    }
}
/* convert_T[_sat][_rtX] on scalars */
template <class D, int SAT, int MODE, class S> KL_FN D kl_convert_s(S x) {
    if constexpr (kl_is_fp<D>::value)
        return kl_to_fp<D, MODE>(x);
    else if constexpr (kl_is_fp<S>::value)
        return kl_fp_to_int<D, MODE>(x);
    else if constexpr (SAT)
        return kl_sat_int<D>(x);
    else
        return (D)x;
}
/* component-wise, written out rather than through kl_lift: conversions
 * are common in vector code and this is far less for NVRTC to instantiate */
template <class T, int SAT, int MODE, class V, int... I>
KL_FN T kl_convert_v(const V &x, kl_iseq<I...>) {
    const kl_elem_t<V> *e = &x.x;
    return T(kl_mk_tag{}, kl_convert_s<kl_elem_t<T>, SAT, MODE>(e[I])...);
}
/* One entry for scalars and vectors, chosen by T: two overloads with
 * enable_if conditions cost NVRTC both conditions at every call. */
template <class T, int SAT, int MODE, class S> KL_FN T kl_convert(const S &x) {
    if constexpr (kl_is_vec<T>::value) {
        static_assert(kl_width<T>::value == kl_width<kl_val_t<S>>::value,
                      "convert_: source and destination widths differ");
        return kl_convert_v<T, SAT, MODE>(kl_val(x), kl_iseq_for<kl_width<T>::value>{});
    } else {
        static_assert(kl_is_arith<S>::value && kl_is_arith<T>::value,
                      "convert_: a scalar destination takes a scalar source");
        return kl_convert_s<kl_decay_t<T>, SAT, MODE>(x);
    }
}
/* as_T: reinterpretation (N=3 and N=4 types are both 4 elements big) */
template <class T, class S> KL_CFN T kl_as(const S &x) {
    typedef kl_val_t<S> V;
    static_assert(sizeof(T) == sizeof(V), "as_: source and destination sizes differ");
    return __builtin_bit_cast(T, (V)kl_val(x));
}

/* @section shifts */
/* ---- shifts with a non-literal count ---------------------------------------- */

template <class T> KL_CFN auto kl_shift_count(T x) {
    if constexpr (__is_enum(T)) /* an enumeration constant counts as int */
        return kl_shc<int>{(int)x};
    else
        return kl_shc<kl_val_t<T>>{kl_val(x)};
}
#define KL_SHC_T(A) template <class A, class T, kl_enable_if_t<kl_is_int<A>::value && kl_is_int<T>::value, int> = 0>
/* scalars: the count is masked to the promoted left operand's width */
KL_SHC_T(A) KL_CFN auto operator<<(A a, kl_shc<T> c) {
    typedef decltype(+a) P;
    return (P)((kl_unsigned_t<P>)a << (c.v & (sizeof(P) * 8 - 1)));
}
KL_SHC_T(A) KL_CFN auto operator>>(A a, kl_shc<T> c) {
    typedef decltype(+a) P;
    return (P)((P)a >> (c.v & (sizeof(P) * 8 - 1)));
}
KL_SHC_T(A) KL_CFN A &operator<<=(A &a, kl_shc<T> c) {
    a = (A)(a << c);
    return a;
}
KL_SHC_T(A) KL_CFN A &operator>>=(A &a, kl_shc<T> c) {
    a = (A)(a >> c);
    return a;
}
/* vectors: a scalar count is splat, a vector count converted bit-wise */
template <class V, class T> KL_CFN V kl_shc_vec(kl_shc<T> c) {
    if constexpr (kl_is_vec<T>::value)
        return kl_convert<V, 0, 0>(c.v);
    else
        return V(c.v);
}

/* @section vectors */
/* ---- vector types -------------------------------------------------------- */

/* One class template, kl_v<T, N>, with a partial specialisation per width
 * (the members' names differ); kl_float4 and the others name its
 * specialisations.  A template costs NVRTC almost nothing until a program
 * uses a type, and then only the operators it calls are instantiated:
 * fifty non-template structs with all their operators cost ~20 times more
 * to compile than a typical kernel. */
/* Operators: hidden friends and members of each vector type, so that an
 * expression only looks at the operators of the types in it (found by ADL,
 * also through a proxy, whose template argument is the vector type).  The
 * operators are non-templates taking two vectors, so proxies convert, and
 * so do scalars (the splat constructor): v * 2 is v * V(2), with no
 * vector-scalar forms to declare for every type. */

/* The operators are written once, in the base kl_vops below; each width's
 * class spells its components in two helpers only, kl_zip (binary) and
 * kl_map (unary), which apply an operation tag's f to each component.
 * Spelling the components in every operator of every width made the width
 * sections most of what NVRTC read for a vector program (62 M of the 80 M
 * instructions NVRTC spent reading vload_vstore.cl's five widths).  The
 * helpers read the members by name (a.x ...): NVVM merges those loads into
 * one vector load, which it does not do for a pack over kl_get<I> or over
 * (&a.x)[I]. */
#define KL_E2(F, X) F(x, X), F(y, X)
#define KL_E3(F, X) F(x, X), F(y, X), F(z, X)
#define KL_E4(F, X) KL_E3(F, X), F(w, X)
#define KL_E8(F, X) KL_E4(F, X), F(s4, X), F(s5, X), F(s6, X), F(s7, X)
#define KL_E16(F, X)                                                          \
    KL_E8(F, X), F(s8, X), F(s9, X), F(sa, X), F(sb, X), F(sc, X), F(sd, X),  \
        F(se, X), F(sf, X)
#define KL_ZIP_(m, F) F::f(a.m, b.m)
#define KL_MAP_(m, F) F::f(a.m)
#define KL_VZIP(N)                                                            \
    template <class R, class F>                                               \
    static KL_CFN R kl_zip(const kl_v &a, const kl_v &b) {                    \
        return R(kl_mk_tag{}, KL_E##N(KL_ZIP_, F));                           \
    }                                                                         \
    template <class R, class F> static KL_CFN R kl_map(const kl_v &a) {       \
        return R(kl_mk_tag{}, KL_E##N(KL_MAP_, F));                           \
    }
/* The operations, one template for all (each class costs NVRTC as much to
 * read as an instantiation): component results as the scalar operator
 * gives them, a comparison -1/0, a shift's count masked to the element
 * width, a left shift done unsigned.  OP is the operator's character;
 * E == N != l <= g >= A && O || L << R >> for the two-character ones, and
 * for the unary ones - (N), ! and ~. */
template <int OP> struct kl_op {
    template <class X> static KL_CFN auto f(X x, X y) {
        if constexpr (OP == '+') return x + y;
        else if constexpr (OP == '-') return x - y;
        else if constexpr (OP == '*') return x * y;
        else if constexpr (OP == '/') return x / y;
        else if constexpr (OP == '%') return x % y;
        else if constexpr (OP == '&') return x & y;
        else if constexpr (OP == '|') return x | y;
        else if constexpr (OP == '^') return x ^ y;
        else if constexpr (OP == 'E') return -(x == y);
        else if constexpr (OP == 'N') return -(x != y);
        else if constexpr (OP == '<') return -(x < y);
        else if constexpr (OP == '>') return -(x > y);
        else if constexpr (OP == 'l') return -(x <= y);
        else if constexpr (OP == 'g') return -(x >= y);
        else if constexpr (OP == 'A') return -(x && y);
        else if constexpr (OP == 'O') return -(x || y);
        else if constexpr (OP == 'L') return (X)((kl_unsigned_t<X>)x << (y & (sizeof(X) * 8 - 1)));
        else return (X)(x >> (y & (sizeof(X) * 8 - 1)));
    }
    template <class X> static KL_CFN auto f(X x) {
        if constexpr (OP == '-') return -x;
        else if constexpr (OP == '!') return -(!x);
        else return ~x;
    }
};
#define KL_VOP(OP, TAG)                                                       \
    friend KL_CFN V operator OP(const V &a, const V &b) {                     \
        return V::template kl_zip<V, TAG>(a, b);                              \
    }
#define KL_VSH(OP, TAG)                                                       \
    KL_VOP(OP, TAG)                                                           \
    template <class U> friend KL_CFN V operator OP(const V &a, kl_shc<U> c) { \
        return a OP kl_shc_vec<V>(c);                                         \
    }
/* integer types add % & | ^ ~ and the shifts: friends of this base, which
 * ADL sees as it sees the vector's own */
template <class V> struct kl_int_ops {
    KL_VOP(%, kl_op<'%'>) KL_VOP(&, kl_op<'&'>) KL_VOP(|, kl_op<'|'>)
    KL_VOP(^, kl_op<'^'>) KL_VSH(<<, kl_op<'L'>) KL_VSH(>>, kl_op<'R'>)
    friend KL_CFN V operator~(const V &a) { return V::template kl_map<V, kl_op<'~'>>(a); }
};
struct kl_no_ops {};
/* every type's operators, V = kl_v<T, N> (a base, so that each width's
 * class holds only its members, constructors and kl_zip/kl_map) */
template <class V, class T, int N>
struct kl_vops : kl_cond_t<kl_is_int<T>::value, kl_int_ops<V>, kl_no_ops> {
    KL_VOP(+, kl_op<'+'>) KL_VOP(-, kl_op<'-'>) KL_VOP(*, kl_op<'*'>)
    KL_VOP(/, kl_op<'/'>)
    friend KL_CFN V operator-(const V &a) { return V::template kl_map<V, kl_op<'-'>>(a); }
    friend KL_CFN V operator+(const V &a) { return a; }
};
/* Comparisons, && || and !: one template each for every vector type rather
 * than friends (declared anew in every type a program uses, for operators
 * vector code uses less than arithmetic).  A vector or a swizzle's proxy
 * with one of its type or a scalar, each side converted to the vector type
 * as a friend's parameters would be; the result -1/0 in the element-sized
 * signed integers. */
/* the vector type of a comparison: the first operand's that is a vector,
 * volatile or not, or a swizzle's proxy (R); none: no such operator */
template <class A> struct kl_cmp_side { typedef void V; };
template <class T, int N> struct kl_cmp_side<kl_v<T, N>> { typedef kl_v<T, N> V; };
template <class T, int N> struct kl_cmp_side<volatile kl_v<T, N>> { typedef kl_v<T, N> V; };
template <class V0, class R, int... I> struct kl_cmp_side<kl_swp<V0, R, I...>> { typedef R V; };
template <class VA, class VB> struct kl_cmp_vec { typedef VA V; };
template <class VB> struct kl_cmp_vec<void, VB> { typedef VB V; };
template <> struct kl_cmp_vec<void, void> {};
template <class A, class B>
using kl_cmp_v = typename kl_cmp_vec<typename kl_cmp_side<A>::V, typename kl_cmp_side<B>::V>::V;
#define KL_VCMP(OP, TAG)                                                      \
    template <class A, class B, class V = kl_cmp_v<A, B>>                     \
    KL_CFN auto operator OP(const A &a, const B &b) {                         \
        return V::template kl_zip<kl_cmp_vt<V>, TAG>(V(a), V(b));             \
    }
KL_VCMP(==, kl_op<'E'>) KL_VCMP(!=, kl_op<'N'>) KL_VCMP(<, kl_op<'<'>)
KL_VCMP(>, kl_op<'>'>) KL_VCMP(<=, kl_op<'l'>) KL_VCMP(>=, kl_op<'g'>)
KL_VCMP(&&, kl_op<'A'>) KL_VCMP(||, kl_op<'O'>)
template <class A, class V = typename kl_cmp_vec<typename kl_cmp_side<A>::V, void>::V>
KL_CFN auto operator!(const A &a) {
    return V::template kl_map<kl_cmp_vt<V>, kl_op<'!'>>(V(a));
}
/* Compound assignments and ++ --: one template each for every vector type
 * rather than friends (each friend costs NVRTC a declaration in every type
 * a program uses).  kl_v<T, N> & binds only non-const, non-volatile
 * vector lvalues, as the implicit object of a member would, and a op= b
 * is a = a op b, with the friends' conversions of b. */
#define KL_VCA(OP)                                                            \
    template <class T, int N, class B>                                        \
    KL_CFN kl_v<T, N> &operator OP##=(kl_v<T, N> &a, const B &b) { return a = a OP b; }
KL_VCA(+) KL_VCA(-) KL_VCA(*) KL_VCA(/) KL_VCA(%) KL_VCA(&) KL_VCA(|)
KL_VCA(^) KL_VCA(<<) KL_VCA(>>)
#define KL_VINC(OP)                                                           \
    template <class T, int N> KL_CFN kl_v<T, N> &operator OP##OP(kl_v<T, N> &a) { \
        return a = a OP kl_v<T, N>((T)1);                                     \
    }                                                                         \
    template <class T, int N> KL_CFN kl_v<T, N> operator OP##OP(kl_v<T, N> &a, int) { \
        kl_v<T, N> t = a;                                                     \
        a = a OP kl_v<T, N>((T)1);                                            \
        return t;                                                             \
    }
KL_VINC(+) KL_VINC(-)

#define KL_REP2(e) e, e
#define KL_REP3(e) e, e, e
#define KL_REP4(e) e, e, e, e
#define KL_REP8(e) KL_REP4(e), KL_REP4(e)
#define KL_REP16(e) KL_REP8(e), KL_REP8(e)

/* the members of volatile vectors, in section volatile: only programs that
 * say volatile read them */
#define KL_VOLATILE_MEMBERS(N)
/* swizzles (the translator's .kl_swc<...>()), in section swizzles: only
 * programs with swizzles read them */
#define KL_SWIZZLE_MEMBERS(N)
/* The brace constructor takes N parameters of kl_brace<T>, which converts
 * any scalar explicitly (so {1, 2.0f, 3u} is no narrowing error): a
 * constructor template there, met by every kl_v(kl_mk_tag{}, ...) in the
 * prelude and declared anew in every vector type, cost NVRTC ~8 M
 * instructions in vload_vstore.cl. */
template <class T> struct kl_brace {
    T v;
    template <class S, kl_enable_if_t<kl_is_scalar<S>::value, int> = 0>
    KL_CFN kl_brace(S s) : v((T)s) {}
};
#define KL_BR_P_(m, X) kl_brace<T> a_##m
#define KL_BR_A_(m, X) a_##m.v
/* the members every width has; T and N are the template's */
#define KL_VHEAD(N)                                                           \
    static_assert(kl_is_arith<T>::value, "no OpenCL vector of this type");    \
    typedef T kl_elem_type;                                                   \
    enum { kl_width_value = N };                                              \
    kl_v() = default;                                                         \
    template <class S, kl_enable_if_t<kl_is_scalar<S>::value, int> = 0>       \
    KL_CFN kl_v(S s) : kl_v(kl_mk_tag{}, KL_REP##N((T)s)) {}                  \
    /* brace initialisation {a, b, ...}: N scalars, each converted */         \
    KL_CFN kl_v(KL_E##N(KL_BR_P_, )) : kl_v(kl_mk_tag{}, KL_E##N(KL_BR_A_, )) {} \
    KL_VZIP(N)                                                                \
    KL_VOLATILE_MEMBERS(N)                                                    \
    KL_SWIZZLE_MEMBERS(N)

/* the base with the operators */
template <class T, int N> using kl_ops_base = kl_vops<kl_v<T, N>, T, N>;

/* the OpenCL names: kl_<scalar>N, and kl_vec<T, N>, with each width's
 * section below (one partial specialisation: ten explicit ones, one per
 * element type, cost NVRTC more to read than the width's class; kl_v
 * itself refuses what is not arithmetic).  OpenCL's char is signed
 * whatever the host's char is. */
#define KL_VS(N)                                                              \
    template <class T> struct kl_vec<T, N> {                                  \
        typedef kl_v<kl_cond_t<kl_is_same<T, char>::value, signed char, T>, N> type; \
    };


/* @section swizzles */
/* ---- swizzles ---------------------------------------------------------- */

#undef KL_SWIZZLE_MEMBERS
#define KL_SWIZZLE_MEMBERS(N)                                                 \
    template <int... C> KL_FN decltype(auto) kl_swc() & {                     \
        return kl_swz_lv<N, C...>(*this);                                     \
    }                                                                         \
    /* const vectors and rvalues */                                          \
    template <int... C> KL_CFN auto kl_swc() const & {                        \
        return kl_swz_rv<N, C...>(*this);                                     \
    }                                                                         \
    /* a volatile vector (only its own section makes one) is read first */   \
    template <int... C> KL_FN auto kl_swc() const volatile & {                \
        const kl_v t(*this);                                                  \
        return kl_swz_rv<N, C...>(t);                                         \
    }

struct kl_ilist { int n; int v[16]; };
template <int N, int... C> struct kl_swz;
/* The list of the common chains, one explicit swizzle or one of lo hi even
 * odd, as a pack expansion: NVRTC interprets kl_swz::compute's loops at
 * about 2 M instructions a swizzle. */
template <int N, int C, int... J> KL_CFN kl_ilist kl_swz_half(kl_iseq<J...>) {
    constexpr int h = (N == 3 ? 4 : N) / 2;
    return kl_ilist{h, {(C == -1 ? J : C == -2 ? h + J : C == -3 ? 2 * J : 2 * J + 1)...}};
}
template <int N, int C0, int... C> KL_CFN kl_ilist kl_swz_list() {
    if constexpr (C0 == 100 + (int)sizeof...(C) && (true && ... && (C >= 0 && C < N)))
        return kl_ilist{(int)sizeof...(C), {C...}};
    else if constexpr (sizeof...(C) == 0 && C0 <= -1 && C0 >= -4 && N >= 2)
        return kl_swz_half<N, C0>(kl_iseq_for<(N == 3 ? 4 : N) / 2>{});
    else
        return kl_swz<N, C0, C...>::compute();
}
/* the index list of a kl_swc<C...> chain on a width-N base; n = 0 if bad */
template <int N, int... C> struct kl_swz {
    static KL_CFN kl_ilist compute() {
        const int c[] = {C..., 0};
        const int nc = (int)sizeof...(C);
        kl_ilist L{};
        L.n = N;
        for (int i = 0; i < N; ++i)
            L.v[i] = i;
        int p = 0;
        while (p < nc) {
            int code = c[p++];
            kl_ilist M{};
            if (code <= -1 && code >= -4) {
                if (L.n == 3) {
                    L.v[3] = 3;
                    L.n = 4;
                }
                if (L.n < 2)
                    return kl_ilist{};
                M.n = L.n / 2;
                for (int j = 0; j < M.n; ++j)
                    M.v[j] = code == -1 ? L.v[j] : code == -2 ? L.v[M.n + j]
                           : code == -3 ? L.v[2 * j] : L.v[2 * j + 1];
            } else if (code > 100 && code <= 116 && p + code - 100 <= nc) {
                M.n = code - 100;
                for (int j = 0; j < M.n; ++j) {
                    int k = c[p + j];
                    if (k < 0 || k >= L.n)
                        return kl_ilist{};
                    M.v[j] = L.v[k];
                }
                p += M.n;
            } else {
                return kl_ilist{};
            }
            L = M;
        }
        return L;
    }
    static KL_CFN kl_ilist L() {
        constexpr kl_ilist r = kl_swz_list<N, C...>();
        static_assert(r.n == 1 || r.n == 2 || r.n == 3 || r.n == 4 || r.n == 8 ||
                          r.n == 16,
                      "invalid swizzle: a component out of range, or a width "
                      "that is no vector width");
        return r;
    }
};
/* a chain applied to a proxy's own list I... (padding maps to index 3) */
template <class S, int... I> struct kl_swz_comp {
    static KL_CFN kl_ilist compute() {
        const int idx[] = {I..., 3};
        kl_ilist L = S::L();
        for (int j = 0; j < L.n; ++j)
            L.v[j] = L.v[j] < (int)sizeof...(I) ? idx[L.v[j]] : 3;
        return L;
    }
    static KL_CFN kl_ilist L() { return compute(); }
};

/* the proxy for a multi-component swizzle of a non-const lvalue; R, its
 * vector type, is a template argument so that ADL finds R's operators */
template <class V, class R, int... I> struct kl_swp {
    typedef kl_elem_t<V> E;
    V &v;
    /* components through pointers rather than kl_get<I>: one function
     * instead of one per component for NVRTC to instantiate and NVVM to
     * inline (members are contiguous, as kl_at has them) */
    KL_FN operator R() const { return kl_value(); }
    KL_FN R kl_value() const {
        const E *e = &v.x;
        return R(kl_mk_tag{}, e[I]...);
    }
    template <int... J> KL_FN void kl_store(const R &r, kl_iseq<J...>) const {
        E *e = &v.x;
        const E *from = &r.x;
        ((e[I] = from[J]), ...);
    }
    KL_FN const kl_swp &operator=(const R &r) const {
        kl_store(r, kl_iseq_for<(int)sizeof...(I)>{});
        return *this;
    }
    KL_FN const kl_swp &operator=(const kl_swp &o) const {
        return *this = o.kl_value();
    }
#define KL_SWP_CA(OP)                                                         \
    template <class B> KL_FN const kl_swp &operator OP##=(const B &b) const {  \
        return *this = R(kl_value() OP b);                                    \
    }
    KL_SWP_CA(+) KL_SWP_CA(-) KL_SWP_CA(*) KL_SWP_CA(/) KL_SWP_CA(%)
    KL_SWP_CA(&) KL_SWP_CA(|) KL_SWP_CA(^) KL_SWP_CA(<<) KL_SWP_CA(>>)
#undef KL_SWP_CA
    template <int... C> KL_FN decltype(auto) kl_swc() const;
};
template <class V, class S, int... J>
KL_FN kl_swp<V, typename kl_vec<kl_elem_t<V>, (int)sizeof...(J)>::type, S::L().v[J]...> kl_swz_proxy(V &v, kl_iseq<J...>) { return {v}; }
template <class V, class R, int... I>
template <int... C>
KL_FN decltype(auto) kl_swp<V, R, I...>::kl_swc() const {
    typedef kl_swz_comp<kl_swz<(int)sizeof...(I), C...>, I...> S;
    if constexpr (S::L().n == 1)
        return kl_get<S::L().v[0]>(v);
    else
        return kl_swz_proxy<V, S>(v, kl_iseq_for<S::L().n>{});
}
template <int N, int... C, class V> KL_FN decltype(auto) kl_swz_lv(V &v) {
    typedef kl_swz<N, C...> S;
    if constexpr (S::L().n == 1)
        return kl_get<S::L().v[0]>(v);
    else
        return kl_swz_proxy<V, S>(v, kl_iseq_for<S::L().n>{});
}
template <class S, class V, int... J>
KL_CFN auto kl_swz_value(const V &v, kl_iseq<J...>) {
    typedef typename kl_vec<kl_elem_t<V>, (int)sizeof...(J)>::type R;
    return R(kl_mk_tag{}, kl_get<S::L().v[J]>(v)...);
}
template <int N, int... C, class V> KL_CFN auto kl_swz_rv(const V &v) {
    typedef kl_swz<N, C...> S;
    if constexpr (S::L().n == 1)
        return kl_elem_t<V>(kl_get<S::L().v[0]>(v));
    else
        return kl_swz_value<S>(v, kl_iseq_for<S::L().n>{});
}

/* @section loads */
/* ---- vector loads and stores ------------------------------------------------ */

template <int N, class T, int... I>
KL_FN auto kl_vload_n(size_t off, const T *p, kl_iseq<I...>) {
    typedef typename kl_vec<kl_decay_t<T>, N>::type R;
    p += off * N;
    return R(kl_mk_tag{}, p[I]...);
}
template <int N, class T> KL_FN auto kl_vload(size_t off, const T *p) {
    return kl_vload_n<N>(off, p, kl_iseq_for<N>{});
}
template <int N, class T, class E, int... I>
KL_FN void kl_vstore_n(const E *e, size_t off, T *p, kl_iseq<I...>) {
    p += off * N;
    ((p[I] = e[I]), ...); /* members are contiguous (kl_at) */
}
template <int N, class V, class T> KL_FN void kl_vstore(const V &v, size_t off, T *p) {
    static_assert(kl_width<V>::value == N, "vstoreN: the vector is not N wide");
    kl_vstore_n<N>(&v.x, off, p, kl_iseq_for<N>{});
}
/* a swizzle's proxy stores its vector (an overload rather than kl_val:
 * NVRTC resolves kl_val's overloads anew for each store) */
template <int N, class V, class R, int... I, class T>
KL_FN void kl_vstore(const kl_swp<V, R, I...> &v, size_t off, T *p) {
    kl_vstore<N>(v.kl_value(), off, p);
}

/* @section half */
/* ---- half loads and stores ---------------------------------------------- */

/* half <-> float/double */
KL_FN float kl_half_to_float(unsigned short h) {
#if KL_DEV
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    unsigned s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    float r = e == 31 ? (m ? __builtin_nanf("") : __builtin_inff())
            : e == 0 ? (float)m * (1.0f / 16777216.0f)
                     : ldexpf((float)(m | 1024), (int)e - 25);
    return s ? -r : r;
#endif
}
/* double (every float is one) -> half bits, one rounding, MODE 0 = rte */
KL_FN unsigned short kl_double_to_half(double d, int mode) {
    unsigned long long b = __builtin_bit_cast(unsigned long long, d);
    unsigned s = (unsigned)(b >> 63) << 15;
    int E = (int)((b >> 52) & 0x7ff);
    unsigned long long M = b & 0xfffffffffffffull;
    if (E == 0x7ff)
        return (unsigned short)(s | 0x7c00 | (M ? 0x200 | (unsigned)(M >> 42) : 0));
    bool up = (mode == 3 && !s) || (mode == 4 && s); /* away from zero */
    unsigned short ovf = (unsigned short)(s | ((mode == 0 || mode == 1 || up) ? 0x7c00 : 0x7bff));
    int e = E - 1023;
    if (e > 15)
        return ovf;
    unsigned long long mant = E ? (M | (1ull << 52)) : M;
    int shift = e >= -14 ? 42 : 42 + (-14 - e);
    if (E == 0)
        shift = 63;
    if (shift > 63)
        shift = 63;
    unsigned long long q = mant >> shift, rem = mant & ((1ull << shift) - 1),
                       half = 1ull << (shift - 1);
    bool inc = (mode == 0 || mode == 1) ? (rem > half || (rem == half && (q & 1)))
             : up ? rem != 0 : false;
    q += inc;
    unsigned long long r = e >= -14 ? ((unsigned long long)(e + 14) << 10) + q : q;
    if (r >= 0x7c00)
        return ovf;
    return (unsigned short)(s | r);
}
template <int MODE, class S> KL_FN unsigned short kl_to_half(S x) {
#if KL_DEV
    unsigned short h;
    if constexpr (kl_is_same<S, float>::value) {
        if constexpr (MODE <= 1) asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
        else if constexpr (MODE == 2) asm("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
        else if constexpr (MODE == 3) asm("cvt.rp.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
        else asm("cvt.rm.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    } else {
        if constexpr (MODE <= 1) asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(x));
        else if constexpr (MODE == 2) asm("cvt.rz.f16.f64 %0, %1;" : "=h"(h) : "d"(x));
        else if constexpr (MODE == 3) asm("cvt.rp.f16.f64 %0, %1;" : "=h"(h) : "d"(x));
        else asm("cvt.rm.f16.f64 %0, %1;" : "=h"(h) : "d"(x));
    }
    return h;
#else
    return kl_double_to_half((double)x, MODE);
#endif
}
template <int N, class H, int... I>
KL_FN auto kl_vload_half_(const H *p, kl_iseq<I...>) {
    if constexpr (N == 1)
        return kl_half_to_float(p[0].bits);
    else
        return typename kl_vec<float, N>::type(kl_mk_tag{}, kl_half_to_float(p[I].bits)...);
}
template <int N, class H> KL_FN auto kl_vload_half(size_t off, const H *p) {
    return kl_vload_half_<N>(p + off * N, kl_iseq_for<N>{});
}
template <int N, class H> KL_FN auto kl_vloada_half(size_t off, const H *p) {
    return kl_vload_half_<N>(p + off * (N == 3 ? 4 : N), kl_iseq_for<N>{});
}
template <int N, int MODE, class V, class H, int... I>
KL_FN void kl_vstore_half_(const V &v, H *p, kl_iseq<I...>) {
    ((p[I].bits = kl_to_half<MODE>(kl_comp<I>(v))), ...);
}
template <int N, int MODE, class V, class H>
KL_FN void kl_vstore_half(const V &v, size_t off, H *p) {
    static_assert(kl_width<kl_val_t<V>>::value == N, "vstore_halfN: the value is not N wide");
    kl_vstore_half_<N, MODE>(kl_val(v), p + off * N, kl_iseq_for<N>{});
}
template <int N, int MODE, class V, class H>
KL_FN void kl_vstorea_half(const V &v, size_t off, H *p) {
    static_assert(kl_width<kl_val_t<V>>::value == N, "vstorea_halfN: the value is not N wide");
    kl_vstore_half_<N, MODE>(kl_val(v), p + off * (N == 3 ? 4 : N), kl_iseq_for<N>{});
}

/* @section volatile */
/* ---- volatile vectors (volatile __global int4 *p) --------------------------- */

/* Copied in and out one component at a time.  Templates, so the implicit
 * copy operations stay trivial.  A program whose translation says volatile
 * gets this section (prelude_select.c), before the vector types. */
#define KL_VOLATILE_OP(OP)                                                    \
    template <class V, class B,                                               \
              kl_enable_if_t<kl_is_same<V, volatile kl_v>::value, int> = 0>   \
    friend KL_FN void operator OP(V &a, const B &b) {                         \
        kl_v t(a);                                                            \
        t OP b;                                                               \
        a = t;                                                                \
    }
#undef KL_VOLATILE_MEMBERS
#define KL_VOLATILE_MEMBERS(N)                                                \
    template <class V, kl_enable_if_t<kl_is_same<V, kl_v>::value, int> = 0>   \
    KL_FN kl_v(const volatile V &b) {                                         \
        const volatile T *from = &b.x;                                        \
        T *to = &x;                                                           \
        for (int i = 0; i < (N == 3 ? 4 : N); ++i)                            \
            to[i] = from[i];                                                  \
    }                                                                         \
    template <class V, kl_enable_if_t<kl_is_same<V, kl_v>::value, int> = 0>   \
    KL_FN void operator=(const V &b) volatile {                               \
        const T *from = &b.x;                                                 \
        volatile T *to = &x;                                                  \
        for (int i = 0; i < (N == 3 ? 4 : N); ++i)                            \
            to[i] = from[i];                                                  \
    }                                                                         \
    /* compound assignment to a volatile vector; V deduces the object's  */ \
    /* own type, so only volatile objects see these                         */ \
    KL_VOLATILE_OP(+=) KL_VOLATILE_OP(-=)                                     \
    KL_VOLATILE_OP(*=) KL_VOLATILE_OP(/=)

/* @section vec2 */
/* The vector types of one width each: a program gets the widths it names
 * (kl_float4 ...), loads or stores (kl_vload<N> ...), and with a swizzle
 * every width up to the widest it has (prelude_select.c): most programs
 * use one or two widths, and each costs NVRTC as much to read as all the
 * other vector sections together.  Everything above uses kl_v<T, N> and
 * kl_vec<T, N> only in templates, so a width is needed only where a
 * program makes a vector of it. */
template <class T> struct alignas(2 * sizeof(T)) kl_v<T, 2> : kl_ops_base<T, 2> {
    T x, y;
    KL_CFN kl_v(kl_mk_tag, T a, T b) : x(a), y(b) {}
    KL_VHEAD(2)
};
KL_VS(2)
typedef kl_v<signed char, 2> kl_char2;
typedef kl_v<unsigned char, 2> kl_uchar2; typedef kl_v<short, 2> kl_short2;
typedef kl_v<unsigned short, 2> kl_ushort2; typedef kl_v<int, 2> kl_int2;
typedef kl_v<unsigned int, 2> kl_uint2; typedef kl_v<long, 2> kl_long2;
typedef kl_v<unsigned long, 2> kl_ulong2; typedef kl_v<float, 2> kl_float2;
typedef kl_v<double, 2> kl_double2;

/* @section vec3 */
template <class T> struct alignas(4 * sizeof(T)) kl_v<T, 3> : kl_ops_base<T, 3> {
    T x, y, z, w; /* w: padding, sizeof(N=3) == sizeof(N=4) */
    KL_CFN kl_v(kl_mk_tag, T a, T b, T c) : x(a), y(b), z(c), w() {}
    KL_VHEAD(3)
};
KL_VS(3)
typedef kl_v<signed char, 3> kl_char3;
typedef kl_v<unsigned char, 3> kl_uchar3; typedef kl_v<short, 3> kl_short3;
typedef kl_v<unsigned short, 3> kl_ushort3; typedef kl_v<int, 3> kl_int3;
typedef kl_v<unsigned int, 3> kl_uint3; typedef kl_v<long, 3> kl_long3;
typedef kl_v<unsigned long, 3> kl_ulong3; typedef kl_v<float, 3> kl_float3;
typedef kl_v<double, 3> kl_double3;

/* @section vec4 */
template <class T> struct alignas(4 * sizeof(T)) kl_v<T, 4> : kl_ops_base<T, 4> {
    T x, y, z, w;
    KL_CFN kl_v(kl_mk_tag, T a, T b, T c, T d) : x(a), y(b), z(c), w(d) {}
    KL_VHEAD(4)
};
KL_VS(4)
typedef kl_v<signed char, 4> kl_char4;
typedef kl_v<unsigned char, 4> kl_uchar4; typedef kl_v<short, 4> kl_short4;
typedef kl_v<unsigned short, 4> kl_ushort4; typedef kl_v<int, 4> kl_int4;
typedef kl_v<unsigned int, 4> kl_uint4; typedef kl_v<long, 4> kl_long4;
typedef kl_v<unsigned long, 4> kl_ulong4; typedef kl_v<float, 4> kl_float4;
typedef kl_v<double, 4> kl_double4;

/* @section vec8 */
template <class T> struct alignas(8 * sizeof(T)) kl_v<T, 8> : kl_ops_base<T, 8> {
    T x, y, z, w, s4, s5, s6, s7;
    KL_CFN kl_v(kl_mk_tag, T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7)
        : x(a0), y(a1), z(a2), w(a3), s4(a4), s5(a5), s6(a6), s7(a7) {}
    KL_VHEAD(8)
};
KL_VS(8)
typedef kl_v<signed char, 8> kl_char8;
typedef kl_v<unsigned char, 8> kl_uchar8; typedef kl_v<short, 8> kl_short8;
typedef kl_v<unsigned short, 8> kl_ushort8; typedef kl_v<int, 8> kl_int8;
typedef kl_v<unsigned int, 8> kl_uint8; typedef kl_v<long, 8> kl_long8;
typedef kl_v<unsigned long, 8> kl_ulong8; typedef kl_v<float, 8> kl_float8;
typedef kl_v<double, 8> kl_double8;

/* @section vec16 */
template <class T> struct alignas(16 * sizeof(T)) kl_v<T, 16> : kl_ops_base<T, 16> {
    T x, y, z, w, s4, s5, s6, s7, s8, s9, sa, sb, sc, sd, se, sf;
    KL_CFN kl_v(kl_mk_tag, T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7,
                T a8, T a9, T aa, T ab, T ac, T ad, T ae, T af)
        : x(a0), y(a1), z(a2), w(a3), s4(a4), s5(a5), s6(a6), s7(a7),
          s8(a8), s9(a9), sa(aa), sb(ab), sc(ac), sd(ad), se(ae), sf(af) {}
    KL_VHEAD(16)
};
KL_VS(16)
typedef kl_v<signed char, 16> kl_char16;
typedef kl_v<unsigned char, 16> kl_uchar16; typedef kl_v<short, 16> kl_short16;
typedef kl_v<unsigned short, 16> kl_ushort16; typedef kl_v<int, 16> kl_int16;
typedef kl_v<unsigned int, 16> kl_uint16; typedef kl_v<long, 16> kl_long16;
typedef kl_v<unsigned long, 16> kl_ulong16; typedef kl_v<float, 16> kl_float16;
typedef kl_v<double, 16> kl_double16;

/* @section math */
/* ---- math ------------------------------------------------------------------ */

#define KL_PI_F 3.14159265358979323846f
#define KL_PI 3.14159265358979323846

/* f(float), f(double), and vectors */
#define KL_F1(NAME, FF, DF)                                                   \
    KL_FN float NAME(float x) { return FF(x); }                              \
    KL_FN double NAME(double x) { return DF(x); }                            \
    KL_LIFT(NAME)
/* two or three floating arguments; mixed scalars use the wider type */
#define KL_MIX(NAME)                                                          \
    template <class... A,                                                     \
              kl_enable_if_t<(kl_is_arith<A>::value && ...), int> = 0>        \
    KL_FN auto NAME(A... a) { return NAME((kl_fpc_t<A...>)a...); }
#define KL_F2(NAME, FF, DF)                                                   \
    KL_FN float NAME(float x, float y) { return FF(x, y); }                   \
    KL_FN double NAME(double x, double y) { return DF(x, y); }                \
    KL_MIX(NAME) KL_LIFT(NAME)
#define KL_F3(NAME, FF, DF)                                                   \
    KL_FN float NAME(float x, float y, float z) { return FF(x, y, z); }       \
    KL_FN double NAME(double x, double y, double z) { return DF(x, y, z); }   \
    KL_MIX(NAME) KL_LIFT(NAME)
/* float-only (half_ and native_) */
#define KL_FO1(NAME, FF)                                                      \
    KL_FN float NAME(float x) { return FF(x); }                              \
    KL_LIFT(NAME)
#define KL_FO2(NAME, FF)                                                      \
    KL_FN float NAME(float x, float y) { return FF(x, y); }                   \
    KL_LIFT(NAME)

/* @section mathstd */
KL_F1(kl_acos, acosf, acos) KL_F1(kl_acosh, acoshf, acosh)
KL_F1(kl_asin, asinf, asin) KL_F1(kl_asinh, asinhf, asinh)
KL_F1(kl_atan, atanf, atan) KL_F1(kl_atanh, atanhf, atanh)
KL_F2(kl_atan2, atan2f, atan2) KL_F1(kl_cbrt, cbrtf, cbrt)
KL_F1(kl_ceil, ceilf, ceil) KL_F2(kl_copysign, copysignf, copysign)
KL_F1(kl_cos, cosf, cos) KL_F1(kl_cosh, coshf, cosh)
KL_F1(kl_cospi, cospif, cospi) KL_F1(kl_erfc, erfcf, erfc)
KL_F1(kl_erf, erff, erf) KL_F1(kl_exp, expf, exp) KL_F1(kl_exp2, exp2f, exp2)
KL_F1(kl_exp10, exp10f, exp10) KL_F1(kl_expm1, expm1f, expm1)
KL_F1(kl_fabs, fabsf, fabs) KL_F2(kl_fdim, fdimf, fdim)
KL_F1(kl_floor, floorf, floor) KL_F3(kl_fma, fmaf, fma)
KL_F2(kl_fmax, fmaxf, fmax) KL_F2(kl_fmin, fminf, fmin)
KL_F2(kl_fmod, fmodf, fmod) KL_F2(kl_hypot, hypotf, hypot)
KL_F1(kl_lgamma, lgammaf, lgamma) KL_F1(kl_log, logf, log)
KL_F1(kl_log2, log2f, log2) KL_F1(kl_log10, log10f, log10)
KL_F1(kl_log1p, log1pf, log1p) KL_F1(kl_logb, logbf, logb)
KL_F2(kl_nextafter, nextafterf, nextafter) KL_F2(kl_pow, powf, pow)
KL_F2(kl_remainder, remainderf, remainder) KL_F1(kl_rint, rintf, rint)
KL_F1(kl_round, roundf, round) KL_F1(kl_rsqrt, rsqrtf, rsqrt)
KL_F1(kl_sin, sinf, sin) KL_F1(kl_sinh, sinhf, sinh)
KL_F1(kl_sinpi, sinpif, sinpi) KL_F1(kl_sqrt, sqrtf, sqrt)
KL_F1(kl_tan, tanf, tan) KL_F1(kl_tanh, tanhf, tanh)
KL_F1(kl_tgamma, tgammaf, tgamma) KL_F1(kl_trunc, truncf, trunc)

/* the *pi functions CUDA lacks: a multiplication after the full function */
KL_F1(kl_acospi, (1.0f / KL_PI_F) * acosf, (1.0 / KL_PI) * acos)
KL_F1(kl_asinpi, (1.0f / KL_PI_F) * asinf, (1.0 / KL_PI) * asin)
KL_F1(kl_atanpi, (1.0f / KL_PI_F) * atanf, (1.0 / KL_PI) * atan)
KL_F2(kl_atan2pi, (1.0f / KL_PI_F) * atan2f, (1.0 / KL_PI) * atan2)
/* tanpi = sinpi / cospi: exact zeros and infinities at the integers and halves */
KL_FN float kl_tanpi_f(float x) { return sinpif(x) / cospif(x); }
KL_FN double kl_tanpi_d(double x) { return sinpi(x) / cospi(x); }
KL_F1(kl_tanpi, kl_tanpi_f, kl_tanpi_d)

/* @section mad */
KL_FN float kl_mad(float a, float b, float c) { return fmaf(a, b, c); }
KL_FN double kl_mad(double a, double b, double c) { return fma(a, b, c); }
KL_MIX(kl_mad) KL_LIFT(kl_mad)
/* @section mathmore */
template <class T> KL_FN T kl_maxmag_(T x, T y) {
    T ax = fabs(x), ay = fabs(y);
    return ax > ay ? x : ay > ax ? y : fmax(x, y);
}
template <class T> KL_FN T kl_minmag_(T x, T y) {
    T ax = fabs(x), ay = fabs(y);
    return ax < ay ? x : ay < ax ? y : fmin(x, y);
}
KL_F2(kl_maxmag, kl_maxmag_, kl_maxmag_) KL_F2(kl_minmag, kl_minmag_, kl_minmag_)

/* powr: x >= 0 only, with IEEE 754's special cases */
template <class T> KL_FN T kl_powr_(T x, T y) {
    T nan = (T)__kiln_nanf;
    if (x < 0 || (x == 0 && y == 0) || (x == 1 && fabs(y) == (T)__kiln_huge_val) ||
        (fabs(x) == (T)__kiln_huge_val && y == 0))
        return nan;
    if (x != x || y != y)
        return x + y;
    return pow(x, y);
}
KL_F2(kl_powr, kl_powr_, kl_powr_)
/* pown: |x|^n with the sign of x for odd n (a float n may lose parity) */
KL_FN float kl_pown(float x, int n) {
    float r = powf(fabsf(x), (float)n);
    return (n & 1) ? copysignf(r, x) : r;
}
KL_FN double kl_pown(double x, int n) { return pow(x, (double)n); }
/* rootn: x^(1/n); negative x only for odd n */
template <class T> KL_FN T kl_rootn_(T x, int n) {
    if (n == 0 || (x < 0 && !(n & 1)))
        return (T)__kiln_nanf;
    T r = pow(fabs(x), (T)1 / (T)n);
    return (n & 1) ? copysign(r, x) : r;
}
KL_FN float kl_rootn(float x, int n) { return kl_rootn_(x, n); }
KL_FN double kl_rootn(double x, int n) { return kl_rootn_(x, n); }
KL_FN float kl_ldexp(float x, int n) { return ldexpf(x, n); }
KL_FN double kl_ldexp(double x, int n) { return ldexp(x, n); }
KL_FN int kl_ilogb(float x) { return ilogbf(x); }
KL_FN int kl_ilogb(double x) { return ilogb(x); }
KL_LIFT_NC(kl_pown) KL_LIFT_NC(kl_rootn) KL_LIFT_NC(kl_ldexp) KL_LIFT(kl_ilogb)
/* nan(uint) -> float, nan(ulong) -> double, the code in the mantissa */
template <class T, kl_enable_if_t<kl_is_int<T>::value, int> = 0>
KL_FN auto kl_nan(T c) {
    if constexpr (sizeof(T) == 8)
        return __builtin_bit_cast(double, 0x7ff8000000000000ull | ((unsigned long long)c & 0x7ffffffffffffull));
    else
        return __builtin_bit_cast(float, 0x7fc00000u | ((unsigned)c & 0x3fffffu));
}
KL_LIFT_NC(kl_nan)

/* @section mathout */
/* functions with an out pointer: scalar, then vector (pointer to vector) */
template <class T> KL_FN T kl_fract_(T x, T *ip) {
    T fl = floor(x);
    *ip = fl;
    if (x != x)
        return x;
    if (fabs(x) == (T)__kiln_huge_val)
        return copysign((T)0, x);
    return fmin(x - fl, sizeof(T) == 4 ? (T)0x1.fffffep-1f : (T)0x1.fffffffffffffp-1);
}
template <class T> KL_FN T kl_lgamma_r_(T x, int *sign) {
    T r = lgamma(x);
    T fl = floor(x);
    *sign = (x > 0 || x != x) ? 1 : x == 0 ? (signbit(x) ? -1 : 1)
          : fl == x ? 1 : ((long long)fl & 1) ? -1 : 1;
    return r;
}
KL_FN float kl_fract(float x, float *ip) { return kl_fract_(x, ip); }
KL_FN double kl_fract(double x, double *ip) { return kl_fract_(x, ip); }
KL_FN float kl_frexp(float x, int *e) { return frexpf(x, e); }
KL_FN double kl_frexp(double x, int *e) { return frexp(x, e); }
KL_FN float kl_modf(float x, float *ip) { return modff(x, ip); }
KL_FN double kl_modf(double x, double *ip) { return modf(x, ip); }
KL_FN float kl_sincos(float x, float *c) { *c = cosf(x); return sinf(x); }
KL_FN double kl_sincos(double x, double *c) { *c = cos(x); return sin(x); }
KL_FN float kl_remquo(float x, float y, int *q) { return remquof(x, y, q); }
KL_FN double kl_remquo(double x, double y, int *q) { return remquo(x, y, q); }
KL_FN float kl_lgamma_r(float x, int *s) { return kl_lgamma_r_(x, s); }
KL_FN double kl_lgamma_r(double x, int *s) { return kl_lgamma_r_(x, s); }
/* the vector forms: V deduced from the out pointer, x may be a proxy */
#define KL_OUTP(NAME)                                                         \
    template <class V, class P, int... I>                                     \
    KL_FN V NAME##_v(const V &x, P *p, kl_iseq<I...>) {                       \
        return V(kl_mk_tag{}, NAME(kl_get<I>(x), &kl_get<I>(*p))...);         \
    }                                                                         \
    template <class V, class P,                                               \
              kl_enable_if_t<kl_is_vec<V>::value && kl_is_vec<P>::value, int> = 0> \
    KL_FN V NAME(const kl_id_t<V> &x, P *p) {                                 \
        return NAME##_v(x, p, kl_iseq_for<kl_width<V>::value>{});             \
    }
/* V from the out pointer needs the pointee to be V itself: fract, modf, sincos */
#define KL_OUTP_SAME(NAME)                                                    \
    template <class V, int... I>                                              \
    KL_FN V NAME##_v(const V &x, V *p, kl_iseq<I...>) {                       \
        return V(kl_mk_tag{}, NAME(kl_get<I>(x), &kl_get<I>(*p))...);         \
    }                                                                         \
    template <class V, kl_enable_if_t<kl_is_vec<V>::value, int> = 0>          \
    KL_FN V NAME(const kl_id_t<V> &x, V *p) {                                 \
        return NAME##_v(x, p, kl_iseq_for<kl_width<V>::value>{});             \
    }
KL_OUTP_SAME(kl_fract) KL_OUTP_SAME(kl_modf) KL_OUTP_SAME(kl_sincos)
/* int-vector out pointer: frexp, lgamma_r; the value type comes from x */
#define KL_OUTP_INT(NAME)                                                     \
    template <class V, class P, int... I>                                     \
    KL_FN V NAME##_v(const V &x, P *p, kl_iseq<I...>) {                       \
        return V(kl_mk_tag{}, NAME(kl_get<I>(x), &kl_get<I>(*p))...);         \
    }                                                                         \
    template <class X, class P, kl_enable_if_t<kl_is_vecish<X>::value && kl_is_vec<P>::value, int> = 0> \
    KL_FN auto NAME(const X &x, P *p) {                                       \
        typedef kl_val_t<X> V;                                                \
        return NAME##_v<V>(kl_val(x), p, kl_iseq_for<kl_width<V>::value>{});  \
    }
KL_OUTP_INT(kl_frexp) KL_OUTP_INT(kl_lgamma_r)
template <class V, class P, int... I>
KL_FN V kl_remquo_v(const V &x, const V &y, P *q, kl_iseq<I...>) {
    return V(kl_mk_tag{}, kl_remquo(kl_get<I>(x), kl_get<I>(y), &kl_get<I>(*q))...);
}
template <class X, class Y, class P,
          kl_enable_if_t<kl_is_vecish<X>::value && kl_is_vec<P>::value, int> = 0>
KL_FN auto kl_remquo(const X &x, const Y &y, P *q) {
    typedef kl_val_t<X> V;
    return kl_remquo_v<V>(kl_val(x), V(kl_val(y)), q, kl_iseq_for<kl_width<V>::value>{});
}

/* @section native */
/* half_ and native_: float only, CUDA's fast intrinsics on the device */
#if KL_DEV
#define KL_NAT(f, d) d
#else
#define KL_NAT(f, d) f
#endif
KL_FN float kl_native_recip_(float x) { return KL_NAT(1.0f / x, __fdividef(1.0f, x)); }
KL_FN float kl_native_sqrt_(float x) { return KL_NAT(sqrtf(x), __fdividef(1.0f, rsqrtf(x))); }
KL_FN float kl_native_divide_(float x, float y) { return KL_NAT(x / y, __fdividef(x, y)); }
KL_FN float kl_native_cos_(float x) { return KL_NAT(cosf(x), __cosf(x)); }
KL_FN float kl_native_sin_(float x) { return KL_NAT(sinf(x), __sinf(x)); }
KL_FN float kl_native_tan_(float x) { return KL_NAT(tanf(x), __tanf(x)); }
KL_FN float kl_native_exp_(float x) { return KL_NAT(expf(x), __expf(x)); }
KL_FN float kl_native_exp10_(float x) { return KL_NAT(exp10f(x), __exp10f(x)); }
KL_FN float kl_native_log_(float x) { return KL_NAT(logf(x), __logf(x)); }
KL_FN float kl_native_log2_(float x) { return KL_NAT(log2f(x), __log2f(x)); }
KL_FN float kl_native_log10_(float x) { return KL_NAT(log10f(x), __log10f(x)); }
KL_FN float kl_native_powr_(float x, float y) { return KL_NAT(powf(x, y), __powf(x, y)); }
#undef KL_NAT
#define KL_NATIVE(P)                                                          \
    KL_FO1(P##cos, kl_native_cos_) KL_FO1(P##sin, kl_native_sin_)             \
    KL_FO1(P##tan, kl_native_tan_) KL_FO1(P##exp, kl_native_exp_)             \
    KL_FO1(P##exp2, exp2f) KL_FO1(P##exp10, kl_native_exp10_)                 \
    KL_FO1(P##log, kl_native_log_) KL_FO1(P##log2, kl_native_log2_)           \
    KL_FO1(P##log10, kl_native_log10_) KL_FO1(P##recip, kl_native_recip_)     \
    KL_FO1(P##rsqrt, rsqrtf) KL_FO1(P##sqrt, kl_native_sqrt_)                 \
    KL_FO2(P##divide, kl_native_divide_) KL_FO2(P##powr, kl_native_powr_)
KL_NATIVE(kl_native_) KL_NATIVE(kl_half_)

/* @section integer */
/* ---- integer functions (all integer types; mixed arguments use the common type) */

#define KL_I2_T template <class A, class B, kl_enable_if_t<kl_is_int<A>::value && kl_is_int<B>::value, int> = 0>
#define KL_I3_T template <class A, class B, class C, kl_enable_if_t<kl_is_int<A>::value && kl_is_int<B>::value && kl_is_int<C>::value, int> = 0>
#define KL_I1_T template <class A, kl_enable_if_t<kl_is_int<A>::value, int> = 0>

KL_I1_T KL_CFN kl_unsigned_t<A> kl_abs(A a) {
    typedef kl_unsigned_t<A> U;
    return a < 0 ? (U)((U)0 - (U)a) : (U)a;
}
KL_I2_T KL_CFN auto kl_abs_diff(A a, B b) {
    typedef kl_common_t<A, B> T;
    typedef kl_unsigned_t<T> U;
    return (T)a > (T)b ? (U)((U)a - (U)b) : (U)((U)b - (U)a);
}
KL_I2_T KL_FN auto kl_add_sat(A a_, B b_) {
    typedef kl_common_t<A, B> T;
    typedef kl_unsigned_t<T> U;
    T a = (T)a_, b = (T)b_;
    if constexpr (sizeof(T) < 4) {
        return kl_sat_int<T>((int)a + (int)b);
    } else if constexpr (!kl_is_signed<T>::value) {
        U r = a + b;
        return r < a ? kl_int_max<T>() : r;
    } else {
#if KL_DEV
        if constexpr (sizeof(T) == 4) {
            int r;
            asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
            return (T)r;
        }
#endif
        T r = (T)((U)a + (U)b);
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? kl_int_min<T>() : kl_int_max<T>()) : r;
    }
}
KL_I2_T KL_FN auto kl_sub_sat(A a_, B b_) {
    typedef kl_common_t<A, B> T;
    typedef kl_unsigned_t<T> U;
    T a = (T)a_, b = (T)b_;
    if constexpr (sizeof(T) < 4) {
        return kl_sat_int<T>((int)a - (int)b);
    } else if constexpr (!kl_is_signed<T>::value) {
        return a < b ? (T)0 : (T)(a - b);
    } else {
#if KL_DEV
        if constexpr (sizeof(T) == 4) {
            int r;
            asm("sub.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
            return (T)r;
        }
#endif
        T r = (T)((U)a - (U)b);
        return ((a ^ b) & (a ^ r)) < 0 ? (a < 0 ? kl_int_min<T>() : kl_int_max<T>()) : r;
    }
}
/* (a + b) >> 1 and (a + b + 1) >> 1 without overflow */
KL_I2_T KL_FN auto kl_hadd(A a_, B b_) {
    typedef kl_common_t<A, B> T;
    T a = (T)a_, b = (T)b_;
#if KL_DEV
    if constexpr (kl_is_same<T, int>::value) return __hadd(a, b);
    if constexpr (kl_is_same<T, unsigned>::value) return __uhadd(a, b);
#endif
    return (T)((a >> 1) + (b >> 1) + (a & b & 1));
}
KL_I2_T KL_FN auto kl_rhadd(A a_, B b_) {
    typedef kl_common_t<A, B> T;
    T a = (T)a_, b = (T)b_;
#if KL_DEV
    if constexpr (kl_is_same<T, int>::value) return __rhadd(a, b);
    if constexpr (kl_is_same<T, unsigned>::value) return __urhadd(a, b);
#endif
    return (T)((a >> 1) + (b >> 1) + ((a | b) & 1));
}
KL_I1_T KL_FN A kl_clz(A a) {
    typedef kl_unsigned_t<A> U;
    constexpr int pad = 32 - 8 * (int)sizeof(A);
#if KL_DEV
    if constexpr (sizeof(A) == 8)
        return (A)__clzll((long long)a);
    else
        return (A)(__clz((int)(unsigned)(U)a) - pad);
#else
    if constexpr (sizeof(A) == 8)
        return (A)(a ? __builtin_clzll((unsigned long long)a) : 64);
    else
        return (A)((U)a ? __builtin_clz((unsigned)(U)a) - pad : 32 - pad);
#endif
}
KL_I1_T KL_FN A kl_popcount(A a) {
    typedef kl_unsigned_t<A> U;
#if KL_DEV
    if constexpr (sizeof(A) == 8)
        return (A)__popcll((unsigned long long)a);
    else
        return (A)__popc((unsigned)(U)a);
#else
    if constexpr (sizeof(A) == 8)
        return (A)__builtin_popcountll((unsigned long long)a);
    else
        return (A)__builtin_popcount((unsigned)(U)a);
#endif
}
KL_I2_T KL_FN auto kl_mul_hi(A a_, B b_) {
    typedef kl_common_t<A, B> T;
    T a = (T)a_, b = (T)b_;
    if constexpr (sizeof(T) < 4) {
        return (T)(((int)a * (int)b) >> (8 * sizeof(T)));
    } else if constexpr (sizeof(T) == 4) {
#if KL_DEV
        if constexpr (kl_is_signed<T>::value) return (T)__mulhi(a, b);
        else return (T)__umulhi(a, b);
#else
        typedef kl_cond_t<kl_is_signed<T>::value, long long, unsigned long long> W;
        return (T)(((W)a * (W)b) >> 32);
#endif
    } else {
#if KL_DEV
        if constexpr (kl_is_signed<T>::value) return (T)__mul64hi(a, b);
        else return (T)__umul64hi(a, b);
#else
        typedef kl_cond_t<kl_is_signed<T>::value, __int128, unsigned __int128> W;
        return (T)(((W)a * (W)b) >> 64);
#endif
    }
}
KL_I3_T KL_FN auto kl_mad_hi(A a, B b, C c) {
    typedef kl_common_t<kl_common_t<A, B>, C> T;
    return (T)(kl_mul_hi((T)a, (T)b) + (T)c);
}
KL_I3_T KL_FN auto kl_mad_sat(A a_, B b_, C c_) {
    typedef kl_common_t<kl_common_t<A, B>, C> T;
    T a = (T)a_, b = (T)b_, c = (T)c_;
    if constexpr (sizeof(T) < 4) {
        return kl_sat_int<T>((int)a * (int)b + (int)c);
    } else if constexpr (sizeof(T) == 4) {
        typedef kl_cond_t<kl_is_signed<T>::value, long long, unsigned long long> W;
        return kl_sat_int<T>((W)a * (W)b + (W)c); /* exact in 64 bits */
    } else if constexpr (!kl_is_signed<T>::value) {
        T hi = kl_mul_hi(a, b), lo = a * b, r = lo + c;
        return (hi != 0 || r < lo) ? kl_int_max<T>() : r;
    } else {
        /* the 128-bit product plus c, then whether it fits in 64 bits */
        typedef unsigned long U;
        U lo = (U)a * (U)b;
        long hi = kl_mul_hi(a, b);
        U lo2 = lo + (U)c;
        long hi2 = hi + (c < 0 ? -1 : 0) + (lo2 < lo ? 1 : 0);
        if (hi2 == ((long)lo2 >> 63))
            return (T)lo2;
        return hi2 < 0 ? kl_int_min<T>() : kl_int_max<T>();
    }
}
KL_I2_T KL_FN auto kl_rotate(A a_, B n_) {
    typedef kl_common_t<A, B> T;
    typedef kl_unsigned_t<T> U;
    constexpr int bits = 8 * (int)sizeof(T);
    U a = (U)(T)a_;
    int n = (int)((U)(T)n_ & (bits - 1));
#if KL_DEV
    if constexpr (bits == 32)
        return (T)__funnelshift_l(a, a, n);
#endif
    return (T)(U)((a << n) | (a >> ((bits - n) & (bits - 1))));
}
/* mul24/mad24: OpenCL leaves out-of-range inputs undefined, and a full
 * 32-bit multiply is as fast as a 24-bit one on current GPUs */
KL_I2_T KL_CFN auto kl_mul24(A a, B b) {
    typedef kl_common_t<A, B> T;
    return (T)((T)a * (T)b);
}
KL_I3_T KL_CFN auto kl_mad24(A a, B b, C c) {
    typedef kl_common_t<kl_common_t<A, B>, C> T;
    return (T)((T)a * (T)b + (T)c);
}
/* upsample(hi, lo): twice as wide, signed like hi */
KL_I2_T KL_CFN auto kl_upsample(A hi, B lo) {
    constexpr int s = (int)sizeof(A);
    typedef kl_cond_t<kl_is_signed<A>::value, kl_sint_t<2 * s>, kl_uint_t<2 * s>> R;
    return (R)(((kl_uint_t<2 * s>)(kl_uint_t<s>)hi << (8 * s)) | (kl_uint_t<s>)lo);
}
KL_LIFT(kl_abs) KL_LIFT(kl_abs_diff) KL_LIFT(kl_add_sat) KL_LIFT(kl_sub_sat)
KL_LIFT(kl_hadd) KL_LIFT(kl_rhadd) KL_LIFT(kl_clz) KL_LIFT(kl_popcount)
KL_LIFT(kl_mul_hi) KL_LIFT(kl_mad_hi) KL_LIFT(kl_mad_sat) KL_LIFT(kl_rotate)
KL_LIFT(kl_mul24) KL_LIFT(kl_mad24) KL_LIFT_NC(kl_upsample)

/* @section common */
/* ---- common functions (integer and floating) ------------------------------ */

#define KL_A2_T template <class A, class B, kl_enable_if_t<kl_is_arith<A>::value && kl_is_arith<B>::value, int> = 0>
#define KL_A3_T template <class A, class B, class C, kl_enable_if_t<kl_is_arith<A>::value && kl_is_arith<B>::value && kl_is_arith<C>::value, int> = 0>

KL_A2_T KL_FN auto kl_max(A a, B b) {
    typedef kl_common_t<A, B> T;
    if constexpr (kl_is_fp<T>::value)
        return (T)fmax((T)a, (T)b);
    else
        return (T)a < (T)b ? (T)b : (T)a;
}
KL_A2_T KL_FN auto kl_min(A a, B b) {
    typedef kl_common_t<A, B> T;
    if constexpr (kl_is_fp<T>::value)
        return (T)fmin((T)a, (T)b);
    else
        return (T)b < (T)a ? (T)b : (T)a;
}
KL_A3_T KL_FN auto kl_clamp(A x, B lo, C hi) {
    typedef kl_common_t<kl_common_t<A, B>, C> T;
    return kl_min(kl_max((T)x, (T)lo), (T)hi);
}
/* the floating-only common functions take the wider floating type */
#define KL_FP1_T template <class A, kl_enable_if_t<kl_is_arith<A>::value, int> = 0>
KL_FP1_T KL_CFN auto kl_degrees(A x) {
    typedef kl_fpc_t<A> T;
    return (T)x * (T)(180.0 / KL_PI);
}
KL_FP1_T KL_CFN auto kl_radians(A x) {
    typedef kl_fpc_t<A> T;
    return (T)x * (T)(KL_PI / 180.0);
}
KL_FP1_T KL_CFN auto kl_sign(A x_) {
    typedef kl_fpc_t<A> T;
    T x = (T)x_;
    return x > 0 ? (T)1 : x < 0 ? (T)-1 : x == 0 ? x : (T)0; /* NaN -> 0 */
}
KL_A3_T KL_CFN auto kl_mix(A x, B y, C a) {
    typedef kl_fpc_t<A, B, C> T;
    return (T)x + ((T)y - (T)x) * (T)a;
}
KL_A2_T KL_CFN auto kl_step(A edge, B x) {
    typedef kl_fpc_t<A, B> T;
    return (T)x < (T)edge ? (T)0 : (T)1;
}
KL_A3_T KL_FN auto kl_smoothstep(A e0, B e1, C x) {
    typedef kl_fpc_t<A, B, C> T;
    T t = kl_clamp(((T)x - (T)e0) / ((T)e1 - (T)e0), (T)0, (T)1);
    return t * t * ((T)3 - (T)2 * t);
}
KL_LIFT(kl_max) KL_LIFT(kl_min) KL_LIFT(kl_clamp) KL_LIFT(kl_degrees)
KL_LIFT(kl_radians) KL_LIFT(kl_sign) KL_LIFT(kl_mix) KL_LIFT(kl_step)
KL_LIFT(kl_smoothstep)

/* @section geometric */
/* ---- geometric functions (floating scalars and vectors of 2, 3, 4) ----------- */

template <class A, int... I> KL_CFN auto kl_dot_(const A &a, const A &b, kl_iseq<I...>) {
    return (... + (kl_get<I>(a) * kl_get<I>(b)));
}
template <class A, class B> KL_CFN auto kl_dot(const A &a, const B &b) {
    typedef kl_val_t<A> V;
    static_assert(kl_is_fp<kl_elem_t<V>>::value && kl_width<V>::value <= 4,
                  "dot: floating scalars or vectors of 2, 3 or 4");
    if constexpr (kl_is_vec<V>::value)
        return kl_dot_(kl_val(a), V(kl_val(b)), kl_iseq_for<kl_width<V>::value>{});
    else
        return (V)a * (V)b;
}
template <class A> KL_FN auto kl_length(const A &a) {
    return sqrt(kl_dot(a, a));
}
template <class A, class B> KL_FN auto kl_distance(const A &a, const B &b) {
    typedef kl_val_t<A> V;
    return kl_length(V(kl_val(a)) - V(kl_val(b)));
}
template <class A> KL_FN kl_val_t<A> kl_normalize(const A &a) {
    typedef kl_val_t<A> V;
    V v = kl_val(a);
    auto d = kl_dot(v, v);
    if (d == 0)
        return v; /* all zero stays zero */
    return v * rsqrt(d);
}
template <class A> KL_FN auto kl_fast_length(const A &a) {
    return kl_native_sqrt(kl_dot(a, a));
}
template <class A, class B> KL_FN auto kl_fast_distance(const A &a, const B &b) {
    typedef kl_val_t<A> V;
    return kl_fast_length(V(kl_val(a)) - V(kl_val(b)));
}
template <class A> KL_FN kl_val_t<A> kl_fast_normalize(const A &a) {
    typedef kl_val_t<A> V;
    V v = kl_val(a);
    auto d = kl_dot(v, v);
    return d == 0 ? v : v * kl_native_rsqrt(d);
}
template <class A, class B> KL_CFN kl_val_t<A> kl_cross(const A &a_, const B &b_) {
    typedef kl_val_t<A> V;
    static_assert(kl_width<V>::value == 3 || kl_width<V>::value == 4, "cross: vectors of 3 or 4");
    V a = kl_val(a_), b = kl_val(b_), r = V(0);
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}

/* @section relational */
/* ---- relational functions ------------------------------------------------- */

#define KL_REL1(NAME, EXPR)                                                   \
    KL_CFN int NAME(float x) { return EXPR; }                                \
    KL_CFN int NAME(double x) { return EXPR; }                               \
    KL_LIFT_REL(NAME)
#define KL_REL2(NAME, EXPR)                                                   \
    KL_CFN int NAME(float x, float y) { return EXPR; }                       \
    KL_CFN int NAME(double x, double y) { return EXPR; }                     \
    KL_MIX(NAME) KL_LIFT_REL(NAME)
KL_REL2(kl_isequal, x == y) KL_REL2(kl_isnotequal, x != y)
KL_REL2(kl_isgreater, x > y) KL_REL2(kl_isgreaterequal, x >= y)
KL_REL2(kl_isless, x < y) KL_REL2(kl_islessequal, x <= y)
KL_REL2(kl_islessgreater, x < y || x > y)
KL_REL2(kl_isordered, x == x && y == y) KL_REL2(kl_isunordered, x != x || y != y)
KL_REL1(kl_isnan, x != x)
KL_REL1(kl_isinf, x == (decltype(x))__kiln_huge_val || x == -(decltype(x))__kiln_huge_val)
KL_REL1(kl_isfinite, x - x == 0)
KL_REL1(kl_isnormal, x - x == 0 && (x < 0 ? -x : x) >= (sizeof(x) == 4 ? 0x1p-126 : 0x1p-1022))
KL_CFN int kl_signbit(float x) { return (int)(__builtin_bit_cast(unsigned, x) >> 31); }
KL_CFN int kl_signbit(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 63); }
KL_LIFT_REL(kl_signbit)

/* the most significant bit of an integer, as bool */
template <class T> KL_CFN bool kl_msb(T c) { return (kl_sint_t<(int)sizeof(T)>)c < 0; }
template <class V, int... I> KL_CFN int kl_any_(const V &v, kl_iseq<I...>) {
    return (... || kl_msb(kl_get<I>(v)));
}
template <class V, int... I> KL_CFN int kl_all_(const V &v, kl_iseq<I...>) {
    return (... && kl_msb(kl_get<I>(v)));
}
template <class A> KL_CFN int kl_any(const A &a) {
    if constexpr (kl_is_vecish<A>::value)
        return kl_any_(kl_val(a), kl_iseq_for<kl_width<kl_val_t<A>>::value>{});
    else
        return kl_msb(a);
}
template <class A> KL_CFN int kl_all(const A &a) {
    if constexpr (kl_is_vecish<A>::value)
        return kl_all_(kl_val(a), kl_iseq_for<kl_width<kl_val_t<A>>::value>{});
    else
        return kl_msb(a);
}
/* bitselect: bits of b where c is 1, of a where it is 0 */
template <class T, kl_enable_if_t<kl_is_arith<T>::value, int> = 0>
KL_CFN T kl_bitselect(T a, kl_id_t<T> b, kl_id_t<T> c) {
    typedef kl_unsigned_t<T> U;
    U ua = __builtin_bit_cast(U, a), ub = __builtin_bit_cast(U, b), uc = __builtin_bit_cast(U, c);
    return __builtin_bit_cast(T, (U)((ua & ~uc) | (ub & uc)));
}
KL_LIFT(kl_bitselect)
/* select: scalar c != 0 picks b; vector components by the MSB of c */
template <class A, class B, class C,
          kl_enable_if_t<kl_is_arith<A>::value && kl_is_arith<B>::value && kl_is_int<C>::value, int> = 0>
KL_CFN auto kl_select(A a, B b, C c) {
    typedef kl_common_t<A, B> T;
    return c ? (T)b : (T)a;
}
KL_VEC_T() KL_CFN auto kl_select(const A &...a) {
    return kl_lift([](auto x, auto y, auto c) { return kl_msb(c) ? y : x; }, a...);
}

/* @section select */
/* ---- ?: with a possibly vector condition ------------------------------------ */

/* the result: the vector operand's type, else both scalars widened to c */
template <class A, class B, int N, class = void> struct kl_tern_type {
    typedef typename kl_vec<kl_common_t<A, B>, N>::type type;
};
template <class A, class B, int N>
struct kl_tern_type<A, B, N, kl_enable_if_t<kl_is_vec<A>::value>> { typedef A type; };
template <class A, class B, int N>
struct kl_tern_type<A, B, N, kl_enable_if_t<!kl_is_vec<A>::value && kl_is_vec<B>::value>> {
    typedef B type;
};
template <class C, class F1, class F2> KL_FN auto kl_tern(C c, F1 f1, F2 f2) {
    if constexpr (!kl_is_vecish<C>::value) {
        return c ? f1() : f2();
    } else {
        auto a = kl_val(f1());
        auto b = kl_val(f2());
        typedef decltype(a) TA;
        typedef decltype(b) TB;
        typedef typename kl_tern_type<TA, TB, kl_width<kl_val_t<C>>::value>::type R;
        return kl_lift<false>([](auto x, auto y, auto m) { return kl_msb(m) ? x : y; },
                              R(a), R(b), kl_val(c));
    }
}

/* ---- vector miscellany -------------------------------------------------------- */

template <class A> KL_CFN int kl_vec_step(const A &) {
    constexpr int n = kl_width<kl_val_t<A>>::value;
    return n == 3 ? 4 : n;
}
/* component i of v, chosen by comparisons (no local memory) */
template <class V, int... I> KL_CFN kl_elem_t<V> kl_pick_(const V &v, unsigned i, kl_iseq<I...>) {
    kl_elem_t<V> r = kl_get<0>(v);
    ((r = i == (unsigned)I ? kl_get<I>(v) : r), ...);
    return r;
}
template <class V> KL_CFN kl_elem_t<V> kl_pick(const V &v, unsigned i) {
    return kl_pick_(v, i, kl_iseq_for<kl_width<V>::value>{});
}
template <class V, class M, int... I> KL_CFN auto kl_shuffle_(const V &x, const M &m, kl_iseq<I...>) {
    constexpr unsigned n = kl_width<V>::value == 3 ? 4 : kl_width<V>::value;
    typedef typename kl_vec<kl_elem_t<V>, kl_width<M>::value>::type R;
    return R(kl_mk_tag{}, kl_pick(x, (unsigned)kl_get<I>(m) & (n - 1))...);
}
template <class X, class M> KL_CFN auto kl_shuffle(const X &x, const M &m) {
    typedef kl_val_t<M> VM;
    return kl_shuffle_(kl_val_t<X>(kl_val(x)), VM(kl_val(m)), kl_iseq_for<kl_width<VM>::value>{});
}
template <class V, class M, int... I>
KL_CFN auto kl_shuffle2_(const V &x, const V &y, const M &m, kl_iseq<I...>) {
    constexpr unsigned n = kl_width<V>::value == 3 ? 4 : kl_width<V>::value;
    typedef typename kl_vec<kl_elem_t<V>, kl_width<M>::value>::type R;
    return R(kl_mk_tag{}, ((unsigned)kl_get<I>(m) & n)
                              ? kl_pick(y, (unsigned)kl_get<I>(m) & (n - 1))
                              : kl_pick(x, (unsigned)kl_get<I>(m) & (n - 1))...);
}
template <class X, class Y, class M>
KL_CFN auto kl_shuffle2(const X &x, const Y &y, const M &m) {
    typedef kl_val_t<X> V;
    typedef kl_val_t<M> VM;
    return kl_shuffle2_(V(kl_val(x)), V(kl_val(y)), VM(kl_val(m)), kl_iseq_for<kl_width<VM>::value>{});
}

/* @section workitems */
/* ---- work-items and synchronisation (device only) ------------------------------- */

/* The launch's work dimensions (kiln_launch_config.dimensions, which the
 * grid and block cannot always show: a 2-D launch of N x 1): in a program
 * that calls get_work_dim(), every kernel takes them as a hidden last
 * parameter (the core appends it at each launch, core/launch.c) and each
 * work-item stores it here first thing.  The block's work-items all store
 * the same value and each reads only after its own store, so no barrier
 * is needed, and launches on other streams have copies of their own. */
__shared__ unsigned kl_work_dim_shared;
KL_DFN void kl_work_dim_set(unsigned dimensions) {
    *(volatile unsigned *)&kl_work_dim_shared = dimensions;
}
KL_DFN uint kl_get_work_dim() {
    return *(volatile unsigned *)&kl_work_dim_shared;
}
#define KL_WI(NAME, X, Y, Z, OTHER)                                           \
    KL_DFN size_t NAME(uint d) {                                              \
        return d == 0 ? (size_t)(X) : d == 1 ? (size_t)(Y) : d == 2 ? (size_t)(Z) : (size_t)(OTHER); \
    }
KL_WI(kl_get_global_id, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
      (size_t)blockIdx.y * blockDim.y + threadIdx.y,
      (size_t)blockIdx.z * blockDim.z + threadIdx.z, 0)
KL_WI(kl_get_global_size, (size_t)gridDim.x * blockDim.x,
      (size_t)gridDim.y * blockDim.y, (size_t)gridDim.z * blockDim.z, 1)
KL_WI(kl_get_local_id, threadIdx.x, threadIdx.y, threadIdx.z, 0)
KL_WI(kl_get_local_size, blockDim.x, blockDim.y, blockDim.z, 1)
KL_WI(kl_get_group_id, blockIdx.x, blockIdx.y, blockIdx.z, 0)
KL_WI(kl_get_num_groups, gridDim.x, gridDim.y, gridDim.z, 1)
#undef KL_WI
KL_DFN size_t kl_get_global_offset(uint) { return 0; }
/* OpenCL 2.0 work-item functions; Kiln's work-groups are always uniform */
KL_DFN size_t kl_get_enqueued_local_size(uint d) { return kl_get_local_size(d); }
KL_DFN size_t kl_get_global_linear_id() {
    return ((size_t)kl_get_global_id(2) * kl_get_global_size(1) +
            kl_get_global_id(1)) * kl_get_global_size(0) + kl_get_global_id(0);
}
KL_DFN size_t kl_get_local_linear_id() {
    return ((size_t)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x +
           threadIdx.x;
}

KL_DFN void kl_barrier(unsigned) { __syncthreads(); }
KL_DFN void kl_mem_fence(unsigned flags) {
    if (flags & 2)
        __threadfence();
    else
        __threadfence_block();
}
KL_DFN void kl_read_mem_fence(unsigned flags) { kl_mem_fence(flags); }
KL_DFN void kl_write_mem_fence(unsigned flags) { kl_mem_fence(flags); }

/* async copies: done at once by the whole work-group, waited for by a barrier */
KL_DFN size_t kl_wg_linear_id() {
    return threadIdx.x + (size_t)blockDim.x * (threadIdx.y + (size_t)blockDim.y * threadIdx.z);
}
KL_DFN size_t kl_wg_size() { return (size_t)blockDim.x * blockDim.y * blockDim.z; }
template <class T>
KL_DFN kl_event_t kl_async_work_group_copy(T *dst, const kl_id_t<T> *src, size_t n, kl_event_t e) {
    for (size_t i = kl_wg_linear_id(); i < n; i += kl_wg_size())
        dst[i] = src[i];
    return e;
}
/* strided: gathers into local memory, or scatters out of it */
template <class T>
KL_DFN kl_event_t kl_async_work_group_strided_copy(T *dst, const kl_id_t<T> *src, size_t n,
                                                   size_t stride, kl_event_t e) {
    bool to_local = __isShared((const void *)dst);
    for (size_t i = kl_wg_linear_id(); i < n; i += kl_wg_size()) {
        if (to_local)
            dst[i] = src[i * stride];
        else
            dst[i * stride] = src[i];
    }
    return e;
}
KL_DFN void kl_wait_group_events(int, kl_event_t *) { __syncthreads(); }
template <class T> KL_DFN void kl_prefetch(const T *, size_t) {} /* a hint */

/* @section atomics */
/* ---- atomics (device only): OpenCL's old-value semantics ------------------------ */

#define KL_AT(P, T, CT)                                                       \
    KL_DFN T P##add(volatile T *p, T v) { return (T)atomicAdd((CT *)p, (CT)v); }          \
    KL_DFN T P##sub(volatile T *p, T v) { return (T)atomicAdd((CT *)p, (CT)0 - (CT)v); }  \
    KL_DFN T P##xchg(volatile T *p, T v) { return (T)atomicExch((CT *)p, (CT)v); }        \
    KL_DFN T P##inc(volatile T *p) { return (T)atomicAdd((CT *)p, (CT)1); }               \
    KL_DFN T P##dec(volatile T *p) { return (T)atomicAdd((CT *)p, (CT)0 - (CT)1); }       \
    KL_DFN T P##cmpxchg(volatile T *p, T c, T v) {                                        \
        return (T)atomicCAS((CT *)p, (CT)c, (CT)v);                                       \
    }                                                                                     \
    KL_DFN T P##and(volatile T *p, T v) { return (T)atomicAnd((CT *)p, (CT)v); }          \
    KL_DFN T P##or(volatile T *p, T v) { return (T)atomicOr((CT *)p, (CT)v); }            \
    KL_DFN T P##xor(volatile T *p, T v) { return (T)atomicXor((CT *)p, (CT)v); }
/* min/max on the signed or unsigned CUDA type matching T's signedness */
#define KL_AT_MM(P, T, MT)                                                    \
    KL_DFN T P##min(volatile T *p, T v) { return (T)atomicMin((MT *)p, (MT)v); } \
    KL_DFN T P##max(volatile T *p, T v) { return (T)atomicMax((MT *)p, (MT)v); }
#define KL_ATOMICS(P)                                                         \
    KL_AT(P, int, int) KL_AT(P, unsigned int, unsigned int)                   \
    KL_AT(P, long, unsigned long long) KL_AT(P, unsigned long, unsigned long long) \
    KL_AT_MM(P, int, int) KL_AT_MM(P, unsigned int, unsigned int)             \
    KL_AT_MM(P, long, long long) KL_AT_MM(P, unsigned long, unsigned long long) \
    KL_DFN float P##xchg(volatile float *p, float v) { return atomicExch((float *)p, v); }
KL_ATOMICS(kl_atomic_) KL_ATOMICS(kl_atom_)
#undef KL_AT
#undef KL_AT_MM
#undef KL_ATOMICS

/* @section builtins */
/* ---- GCC built-ins in code preprocessed by clang (INFINITY is
 * __builtin_inff()) that CUDA has no function for; the translator renames
 * __builtin_X to kl_builtin_X (and the others to CUDA's functions) ------- */

KL_DFN float kl_builtin_inff() { return __kiln_huge_valf; }
KL_DFN float kl_builtin_huge_valf() { return __kiln_huge_valf; }
KL_DFN double kl_builtin_inf() { return __kiln_huge_val; }
KL_DFN double kl_builtin_huge_val() { return __kiln_huge_val; }
KL_DFN float kl_builtin_nanf(const char *) { return __kiln_nanf; }
KL_DFN double kl_builtin_nan(const char *) { return (double)__kiln_nanf; }
KL_DFN int kl_builtin_ctz(unsigned int x) { return __ffs((int)x) - 1; }
KL_DFN int kl_builtin_ctzl(unsigned long x) { return __ffsll((long long)x) - 1; }

/* @section pointers */
/* ---- C's implicit pointer conversions ----------------------------------------- */

/* The translator wraps arguments to pointer parameters and initialisers of
 * pointer variables in kl_cptr(): it converts to whatever object pointer
 * the destination is, as C does (int * to uint *, float4 * to float *,
 * const T * to T *).  An integer (0) converts like C's null pointer. */
struct kl_anyptr {
    void *p;
    template <class T> KL_FN operator T *() const { return (T *)p; }
};
template <class U> KL_FN kl_anyptr kl_cptr(U *p) { return kl_anyptr{(void *)p}; }
template <class X, kl_enable_if_t<kl_is_int<X>::value, int> = 0>
KL_FN kl_anyptr kl_cptr(X x) { return kl_anyptr{(void *)(unsigned long)x}; }

/* @section smem */
/* ---- dynamic shared memory for __local kernel parameters --------------------- */

extern __shared__ __align__(128) unsigned char kl_dynamic_smem[];

/* @end */
#endif /* KILN_CLC_PRELUDE_CUH */
