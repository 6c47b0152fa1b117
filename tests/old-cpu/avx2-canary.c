#include <immintrin.h>
#include <stdio.h>
int main(int argc, char **argv) {
    (void)argv;
    volatile int seed = argc;
    __m256i a = _mm256_set1_epi32(seed), b = _mm256_set1_epi32(2);
    __m256i c = _mm256_add_epi32(a, b); /* vpaddd ymm: AVX2 */
    int out[8];
    _mm256_storeu_si256((__m256i *)out, c);
    printf("%d\n", out[0]);
    return 0;
}
