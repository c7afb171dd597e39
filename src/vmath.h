#ifndef EPIMASK_VMATH_H
#define EPIMASK_VMATH_H

/* exp() and log() written so that a loop calling them can be vectorized
 * (`omp simd`): branch-free, integer work on the bit patterns only. They
 * are accurate to 1 ulp (checked against libm over 2e7 arguments) on their
 * safe ranges; callers send anything else (huge, non-finite, subnormal
 * arguments) to libm. The reduction follows fdlibm: exp by
 * x = k ln2 + r, |r| <= ln2 / 2, and a degree-13 Taylor polynomial; log by
 * x = 2^e m, sqrt(2)/2 <= m < sqrt(2), and fdlibm's minimax polynomial in
 * s = (m - 1) / (m + 1). Loops calling them must be free of conditionals
 * for GCC to vectorize them: arguments are screened in separate loops. */

#include <stdint.h>

/* forced inline, so that the AVX2 clones of the callers vectorize them too */
#if defined(__GNUC__)
#define VM_INLINE static inline __attribute__((always_inline))
#else
#define VM_INLINE static inline
#endif

/* (a union, not memcpy: GCC vectorizes loops through it) */
typedef union {
    double d;
    uint64_t u;
} vm_pun;

VM_INLINE uint64_t vm_bits(double d)
{
    vm_pun v;
    v.d = d;
    return v.u;
}

VM_INLINE double vm_double(uint64_t u)
{
    vm_pun v;
    v.u = u;
    return v.d;
}

/* |x| <= VM_EXP_SAFE keeps 2^k normal */
#define VM_EXP_SAFE 708.0
/* log's safe range: the positive normal finite doubles */
#define VM_LOG_MIN 2.2250738585072014e-308
#define VM_LOG_MAX 1.7976931348623157e308

VM_INLINE double vm_exp_core(double x)
{
    const double shift = 6755399441055744.0; /* 1.5 * 2^52: rounds to an integer */
    double kd = x * 1.4426950408889634 + shift;
    double k = kd - shift;
    double r = x - k * 6.93147180369123816490e-01; /* ln 2, high part: k * it is exact */
    r = r - k * 1.90821492927058770002e-10;       /* ln 2, low part */
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r * r + r;
    /* 2^k: k sits in the low bits of kd, and (k + 1023) << 52 is its pattern */
    double scale = vm_double((vm_bits(kd) + 1023) << 52);
    return (1.0 + p) * scale;
}

VM_INLINE double vm_log_core(double x)
{
    /* x = 2^e m with sqrt(2)/2 <= m < sqrt(2), in integer arithmetic on the
     * bits (musl's reduction); e is converted through 2^52 + integer */
    uint64_t u = vm_bits(x) + (0x3FF0000000000000ULL - 0x3FE6A09E667F3BCDULL);
    double e = vm_double((u >> 52) | 0x4330000000000000ULL) - 4503599627371519.0;
    double m = vm_double((u & 0x000FFFFFFFFFFFFFULL) + 0x3FE6A09E667F3BCDULL);
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    double w = z * z;
    double t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 +
                     w * 1.531383769920937332e-01));
    double t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 +
                     w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
    double R = t2 + t1;
    double hfsq = 0.5 * f * f;
    return e * 6.93147180369123816490e-01 -
        ((hfsq - (s * (hfsq + R) + e * 1.90821492927058770002e-10)) - f);
}

#endif
