#include "CDTLS.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Datagrams waiting to be sent: a handshake flight is a few; more is a peer misbehaving.
#define CDTLS_MAX_QUEUED 32
// Path MTU assumed for the handshake's records (WebRTC's usual, under IPv6's minimum with room for headers).
#define CDTLS_MTU 1200

struct cdtls_identity {
    EVP_PKEY *key;
    X509 *certificate;
};

typedef struct {
    uint8_t *bytes;
    size_t length;
} cdtls_datagram;

struct cdtls_endpoint {
    SSL_CTX *context;
    SSL *ssl;
    int is_server;
    int done;
    // The one received datagram the BIO hands OpenSSL next.
    const uint8_t *incoming;
    size_t incoming_length;
    cdtls_datagram outgoing[CDTLS_MAX_QUEUED];
    size_t outgoing_count;
};

static void cdtls_error(char *error, size_t size, const char *what) {
    unsigned long code = ERR_get_error();
    char reason[200] = "";
    if (code != 0) ERR_error_string_n(code, reason, sizeof reason);
    snprintf(error, size, "%s%s%s", what, code != 0 ? ": " : "", reason);
    ERR_clear_error();
}

cdtls_identity *cdtls_identity_generate(int days, char *error, size_t size) {
    cdtls_identity *identity = calloc(1, sizeof *identity);
    if (identity == NULL) {
        snprintf(error, size, "out of memory");
        return NULL;
    }
    identity->key = EVP_EC_gen("P-256");
    identity->certificate = X509_new();
    if (identity->key == NULL || identity->certificate == NULL) {
        cdtls_error(error, size, "could not make an ECDSA P-256 key");
        cdtls_identity_free(identity);
        return NULL;
    }
    X509 *certificate = identity->certificate;
    uint8_t serial[8];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7F;
    BIGNUM *number = BN_bin2bn(serial, sizeof serial, NULL);
    int ok = number != NULL && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != NULL;
    BN_free(number);
    ok = ok && X509_set_version(certificate, 2);
    ok = ok && X509_gmtime_adj(X509_getm_notBefore(certificate), -86400) != NULL;
    ok = ok && X509_gmtime_adj(X509_getm_notAfter(certificate), (long)days * 86400) != NULL;
    X509_NAME *name = X509_get_subject_name(certificate);
    ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"swift-rtp", -1, -1, 0);
    ok = ok && X509_set_issuer_name(certificate, name);
    ok = ok && X509_set_pubkey(certificate, identity->key);
    ok = ok && X509_sign(certificate, identity->key, EVP_sha256()) > 0;
    if (!ok) {
        cdtls_error(error, size, "could not make the certificate");
        cdtls_identity_free(identity);
        return NULL;
    }
    return identity;
}

int cdtls_identity_fingerprint(const cdtls_identity *identity, uint8_t *out) {
    unsigned int length = 0;
    return X509_digest(identity->certificate, EVP_sha256(), out, &length) == 1 && length == 32 ? 0 : -1;
}

void cdtls_identity_free(cdtls_identity *identity) {
    if (identity == NULL) return;
    EVP_PKEY_free(identity->key);
    X509_free(identity->certificate);
    free(identity);
}

// The BIO between OpenSSL and the caller: a read takes the one datagram handed in, a write queues one datagram.
static int cdtls_bio_write(BIO *bio, const char *data, int length) {
    cdtls_endpoint *endpoint = BIO_get_data(bio);
    if (length <= 0) return 0;
    if (endpoint->outgoing_count >= CDTLS_MAX_QUEUED) return -1;
    uint8_t *copy = malloc((size_t)length);
    if (copy == NULL) return -1;
    memcpy(copy, data, (size_t)length);
    endpoint->outgoing[endpoint->outgoing_count++] = (cdtls_datagram){copy, (size_t)length};
    return length;
}

static int cdtls_bio_read(BIO *bio, char *out, int capacity) {
    cdtls_endpoint *endpoint = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (endpoint->incoming == NULL) {
        BIO_set_retry_read(bio);
        return -1;
    }
    size_t length = endpoint->incoming_length < (size_t)capacity ? endpoint->incoming_length : (size_t)capacity;
    memcpy(out, endpoint->incoming, length);
    endpoint->incoming = NULL;
    endpoint->incoming_length = 0;
    return (int)length;
}

static long cdtls_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio;
    (void)number;
    (void)pointer;
    switch (command) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_DGRAM_QUERY_MTU: return CDTLS_MTU;
    case BIO_CTRL_DGRAM_GET_FALLBACK_MTU: return CDTLS_MTU;
    case BIO_CTRL_WPENDING:
    case BIO_CTRL_PENDING: return 0;
    default: return 0;
    }
}

static int cdtls_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static BIO_METHOD *cdtls_bio_method(void) {
    static BIO_METHOD *method = NULL;
    // Made once; a race makes two, one of which is never freed (a few bytes, once).
    if (method == NULL) {
        BIO_METHOD *made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "swift-rtp datagrams");
        BIO_meth_set_write(made, cdtls_bio_write);
        BIO_meth_set_read(made, cdtls_bio_read);
        BIO_meth_set_ctrl(made, cdtls_bio_ctrl);
        BIO_meth_set_create(made, cdtls_bio_create);
        method = made;
    }
    return method;
}

// WebRTC certificates are self-signed: any is taken here, and its fingerprint is compared with the one the
// session description gave (cdtls_endpoint_peer_fingerprint) by the caller.
static int cdtls_accept_any(int ok, X509_STORE_CTX *store) {
    (void)ok;
    (void)store;
    return 1;
}

// The handshake's retransmission timer: 200 ms, doubling to 3.2 s (OpenSSL's default starts at 1 s, long for a
// viewer waiting for its first picture on a path ICE has just checked).
static unsigned int cdtls_timer(SSL *ssl, unsigned int previous_us) {
    (void)ssl;
    if (previous_us == 0) return 200000;
    return previous_us >= 1600000 ? 3200000 : previous_us * 2;
}

cdtls_endpoint *cdtls_endpoint_new(
    const cdtls_identity *identity, int is_server, const char *profiles, char *error, size_t size) {
    cdtls_endpoint *endpoint = calloc(1, sizeof *endpoint);
    if (endpoint == NULL) {
        snprintf(error, size, "out of memory");
        return NULL;
    }
    endpoint->is_server = is_server;
    endpoint->context = SSL_CTX_new(DTLS_method());
    if (endpoint->context == NULL) {
        cdtls_error(error, size, "could not make a DTLS context");
        cdtls_endpoint_free(endpoint);
        return NULL;
    }
    SSL_CTX *context = endpoint->context;
    int ok = SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1;
    ok = ok && SSL_CTX_use_certificate(context, identity->certificate) == 1;
    ok = ok && SSL_CTX_use_PrivateKey(context, identity->key) == 1;
    // Returns 0 on success, unlike the rest.
    ok = ok && SSL_CTX_set_tlsext_use_srtp(context, profiles) == 0;
    if (!ok) {
        cdtls_error(error, size, "could not set up DTLS-SRTP");
        cdtls_endpoint_free(endpoint);
        return NULL;
    }
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, cdtls_accept_any);
    endpoint->ssl = SSL_new(context);
    BIO *bio = BIO_new(cdtls_bio_method());
    if (endpoint->ssl == NULL || bio == NULL) {
        BIO_free(bio);
        cdtls_error(error, size, "could not make a DTLS association");
        cdtls_endpoint_free(endpoint);
        return NULL;
    }
    BIO_set_data(bio, endpoint);
    SSL_set_bio(endpoint->ssl, bio, bio);
    SSL_set_options(endpoint->ssl, SSL_OP_NO_QUERY_MTU);
    SSL_set_mtu(endpoint->ssl, CDTLS_MTU);
    DTLS_set_timer_cb(endpoint->ssl, cdtls_timer);
    if (is_server) {
        SSL_set_accept_state(endpoint->ssl);
    } else {
        SSL_set_connect_state(endpoint->ssl);
    }
    return endpoint;
}

void cdtls_endpoint_free(cdtls_endpoint *endpoint) {
    if (endpoint == NULL) return;
    SSL_free(endpoint->ssl);
    SSL_CTX_free(endpoint->context);
    for (size_t index = 0; index < endpoint->outgoing_count; index++) free(endpoint->outgoing[index].bytes);
    free(endpoint);
}

static int cdtls_step(cdtls_endpoint *endpoint, char *error, size_t size) {
    if (!endpoint->done) {
        int result = SSL_do_handshake(endpoint->ssl);
        if (result == 1) {
            endpoint->done = 1;
            return 1;
        }
        int reason = SSL_get_error(endpoint->ssl, result);
        if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE) return 0;
        cdtls_error(error, size, "the DTLS handshake failed");
        return -1;
    }
    // After the handshake only alerts are expected (the media is SRTP, not DTLS application data).
    uint8_t sink[2048];
    int result = SSL_read(endpoint->ssl, sink, sizeof sink);
    if (result > 0) return 1;
    int reason = SSL_get_error(endpoint->ssl, result);
    if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE) return 1;
    if (reason == SSL_ERROR_ZERO_RETURN) {
        snprintf(error, size, "the peer closed the DTLS association");
        return -1;
    }
    cdtls_error(error, size, "a DTLS record could not be read");
    return -1;
}

int cdtls_endpoint_receive(cdtls_endpoint *endpoint, const uint8_t *data, size_t length, char *error, size_t size) {
    endpoint->incoming = data;
    endpoint->incoming_length = length;
    int result = cdtls_step(endpoint, error, size);
    endpoint->incoming = NULL;
    endpoint->incoming_length = 0;
    return result;
}

int cdtls_endpoint_start(cdtls_endpoint *endpoint, char *error, size_t size) {
    return cdtls_step(endpoint, error, size);
}

size_t cdtls_endpoint_pending(const cdtls_endpoint *endpoint) {
    return endpoint->outgoing_count > 0 ? endpoint->outgoing[0].length : 0;
}

size_t cdtls_endpoint_take(cdtls_endpoint *endpoint, uint8_t *out, size_t capacity) {
    if (endpoint->outgoing_count == 0) return 0;
    cdtls_datagram first = endpoint->outgoing[0];
    size_t length = first.length < capacity ? first.length : capacity;
    memcpy(out, first.bytes, length);
    free(first.bytes);
    memmove(&endpoint->outgoing[0], &endpoint->outgoing[1], (endpoint->outgoing_count - 1) * sizeof(cdtls_datagram));
    endpoint->outgoing_count -= 1;
    return length;
}

long cdtls_endpoint_timeout_ms(cdtls_endpoint *endpoint) {
    struct timeval timeout;
    if (DTLSv1_get_timeout(endpoint->ssl, &timeout) != 1) return -1;
    return (long)timeout.tv_sec * 1000 + (long)timeout.tv_usec / 1000;
}

int cdtls_endpoint_handle_timeout(cdtls_endpoint *endpoint) {
    return DTLSv1_handle_timeout(endpoint->ssl) < 0 ? -1 : 0;
}

int cdtls_endpoint_peer_fingerprint(cdtls_endpoint *endpoint, uint8_t *out) {
    X509 *peer = SSL_get1_peer_certificate(endpoint->ssl);
    if (peer == NULL) return -1;
    unsigned int length = 0;
    int ok = X509_digest(peer, EVP_sha256(), out, &length) == 1 && length == 32;
    X509_free(peer);
    return ok ? 0 : -1;
}

int cdtls_endpoint_srtp_profile(cdtls_endpoint *endpoint) {
    SRTP_PROTECTION_PROFILE *profile = SSL_get_selected_srtp_profile(endpoint->ssl);
    return profile == NULL ? 0 : (int)profile->id;
}

int cdtls_endpoint_export_keying_material(cdtls_endpoint *endpoint, uint8_t *out, size_t length) {
    static const char label[] = "EXTRACTOR-dtls_srtp";
    return SSL_export_keying_material(endpoint->ssl, out, length, label, sizeof label - 1, NULL, 0, 0) == 1 ? 0 : -1;
}
