/*
 * A stand-in for miniaudio.h, which the Go module of Ollama does not carry
 * (module zips drop vendor/ directories). It declares only what
 * llama.cpp's tools/mtmd/mtmd-helper.cpp uses to decode audio, and every
 * decode fails: deja's integration tests serve embedding models, which never
 * decode audio.
 */
#ifndef DEJA_MINIAUDIO_STANDIN_H
#define DEJA_MINIAUDIO_STANDIN_H
#include <stddef.h>
#include <stdint.h>

#define DEJA_MA_FN static inline
#define MA_SUCCESS 0
#define ma_format_f32 5

typedef int ma_result;
typedef int ma_format;
typedef uint64_t ma_uint64;
typedef struct { int unused; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;

DEJA_MA_FN ma_decoder_config ma_decoder_config_init(ma_format format, int channels, int rate) {
    ma_decoder_config c = {0};
    (void)format; (void)channels; (void)rate;
    return c;
}
DEJA_MA_FN ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *config, ma_decoder *decoder) {
    (void)data; (void)size; (void)config; (void)decoder;
    return -1;
}
DEJA_MA_FN ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *decoder, ma_uint64 *frames) {
    (void)decoder; *frames = 0;
    return -1;
}
DEJA_MA_FN ma_result ma_decoder_read_pcm_frames(ma_decoder *decoder, void *out, ma_uint64 count, ma_uint64 *read) {
    (void)decoder; (void)out; (void)count; *read = 0;
    return -1;
}
DEJA_MA_FN ma_result ma_decoder_uninit(ma_decoder *decoder) {
    (void)decoder;
    return MA_SUCCESS;
}
#endif
