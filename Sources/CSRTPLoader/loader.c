#include "CSRTPLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static csrtp_api api;
static const csrtp_api *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/// libsrtp2 itself when it is already in the process (linked, as pkg-config links it on Apple platforms),
/// else the file by the name the dynamic loader searches for (and, on Apple platforms, in Homebrew's prefixes).
static void *open_library(void) {
    if (dlsym(RTLD_DEFAULT, "srtp_create") != NULL) return RTLD_DEFAULT;
#if defined(__APPLE__)
    const char *const files[] = {"libsrtp2.1.dylib", "/opt/homebrew/lib/libsrtp2.1.dylib", "/usr/local/lib/libsrtp2.1.dylib"};
#else
    const char *const files[] = {"libsrtp2.so.1"};
#endif
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        void *handle = dlopen(files[i], RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) return handle;
        if (i == 0) {
            const char *reason = dlerror();
            snprintf(failure, sizeof failure, "%s (%s)", reason ? reason : "no reason given", files[i]);
        }
    }
    return NULL;
}

static void load(void) {
    void *library = open_library();
    if (library == NULL) return;
#define CSRTP_LOAD(name)                                                                             \
    if ((api.name = (__typeof__(api.name))dlsym(library, #name)) == NULL) {                          \
        snprintf(failure, sizeof failure, "libsrtp2 has no function " #name);                        \
        return;                                                                                      \
    }
    CSRTP_LOAD(srtp_create)
    CSRTP_LOAD(srtp_dealloc)
    CSRTP_LOAD(srtp_unprotect)
    CSRTP_LOAD(srtp_unprotect_rtcp)
    CSRTP_LOAD(srtp_protect)
    CSRTP_LOAD(srtp_protect_rtcp)
    CSRTP_LOAD(srtp_crypto_policy_set_rtp_default)
    CSRTP_LOAD(srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32)
    CSRTP_LOAD(srtp_crypto_policy_set_aes_gcm_128_16_auth)
    CSRTP_LOAD(srtp_crypto_policy_set_aes_gcm_256_16_auth)
#undef CSRTP_LOAD
    // srtp_init must run once per process before anything else (a second call fails).
    __typeof__(srtp_init) *init = (__typeof__(srtp_init) *)dlsym(library, "srtp_init");
    if (init == NULL) {
        snprintf(failure, sizeof failure, "libsrtp2 has no function srtp_init");
        return;
    }
    srtp_err_status_t status = init();
    if (status != srtp_err_status_ok) {
        snprintf(failure, sizeof failure, "srtp_init failed (error %d)", (int)status);
        return;
    }
    loaded = &api;
}

const csrtp_api *csrtp_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded == NULL && size > 0) snprintf(error, size, "%s", failure);
    return loaded;
}
