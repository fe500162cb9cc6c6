#ifndef CSRTP_LOADER_H
#define CSRTP_LOADER_H

#include <stddef.h>
#include <srtp2/srtp.h>

// libsrtp2 is opened when the first SRTP receiver is made, not when the process starts: a program that
// links SRTP but receives none (rtpdump without --srtp-key) does not load libsrtp2 and, on Debian, the NSS
// libraries it uses for its ciphers (five more libraries, about 0.6 ms at every start).

/// A field holding a pointer to the libsrtp2 function of the same name, with that function's own type.
#define CSRTP_FUNCTION(name) __typeof__(name) *_Nonnull name

/// The libsrtp2 functions the receiver and the sender call. (srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 is a macro
/// for srtp_crypto_policy_set_rtp_default.)
typedef struct {
    CSRTP_FUNCTION(srtp_create);
    CSRTP_FUNCTION(srtp_dealloc);
    CSRTP_FUNCTION(srtp_unprotect);
    CSRTP_FUNCTION(srtp_unprotect_rtcp);
    CSRTP_FUNCTION(srtp_protect);
    CSRTP_FUNCTION(srtp_protect_rtcp);
    CSRTP_FUNCTION(srtp_crypto_policy_set_rtp_default);
    CSRTP_FUNCTION(srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32);
    CSRTP_FUNCTION(srtp_crypto_policy_set_aes_gcm_128_16_auth);
    CSRTP_FUNCTION(srtp_crypto_policy_set_aes_gcm_256_16_auth);
} csrtp_api;

/// Opens libsrtp2 (once per process; safe from any thread), runs its srtp_init, and returns its functions;
/// or NULL, with the reason written to `error`.
const csrtp_api *_Nullable csrtp_load(char *_Nonnull error, size_t size);

#endif
