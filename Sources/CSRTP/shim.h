// libsrtp2 (Debian: libsrtp2-dev, pkg-config libsrtp2), as Swift imports it.
#include <srtp2/srtp.h>

// A function-like macro in srtp.h, which Swift cannot import.
static inline void csrtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *p) {
    srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(p);
}
