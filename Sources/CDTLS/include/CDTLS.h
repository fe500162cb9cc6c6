#ifndef CDTLS_H
#define CDTLS_H

#include <stddef.h>
#include <stdint.h>

// A small shim over OpenSSL's DTLS 1.2 for DTLS-SRTP (RFC 5764), sans I/O: datagrams are handed in and taken
// out, never read from or written to a socket here; timers are the caller's (cdtls_endpoint_timeout_ms).

/// A certificate and its private key (ECDSA P-256, self-signed), as WebRTC endpoints use.
typedef struct cdtls_identity cdtls_identity;
/// One DTLS association (one peer), as the server (passive) or the client (active) side.
typedef struct cdtls_endpoint cdtls_endpoint;

/// A new identity valid for `days` days from a day ago; NULL with the reason in `error`.
cdtls_identity *_Nullable cdtls_identity_generate(int days, char *_Nonnull error, size_t size);
/// The certificate's SHA-256 fingerprint (32 bytes into `out`); 0 on success.
int cdtls_identity_fingerprint(const cdtls_identity *_Nonnull identity, uint8_t *_Nonnull out);
void cdtls_identity_free(cdtls_identity *_Nullable identity);

/// A new association using `identity`; `is_server` 1 for the passive side. `profiles` is OpenSSL's SRTP profile
/// list ("SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80"). NULL with the reason in `error`.
cdtls_endpoint *_Nullable cdtls_endpoint_new(
    const cdtls_identity *_Nonnull identity, int is_server, const char *_Nonnull profiles, char *_Nonnull error,
    size_t size);
void cdtls_endpoint_free(cdtls_endpoint *_Nullable endpoint);

/// Hands a received datagram in and runs the handshake (or reads past it). Returns 1 once the handshake is
/// done, 0 while it goes on, -1 when it failed or the peer closed (the reason in `error`).
int cdtls_endpoint_receive(
    cdtls_endpoint *_Nonnull endpoint, const uint8_t *_Nullable data, size_t length, char *_Nonnull error, size_t size);
/// Starts the handshake (the client's first flight); same results as cdtls_endpoint_receive.
int cdtls_endpoint_start(cdtls_endpoint *_Nonnull endpoint, char *_Nonnull error, size_t size);
/// The length of the next datagram to send, 0 when none is waiting.
size_t cdtls_endpoint_pending(const cdtls_endpoint *_Nonnull endpoint);
/// Copies the next datagram to send into `out` (at most `capacity` bytes) and drops it; returns its length.
size_t cdtls_endpoint_take(cdtls_endpoint *_Nonnull endpoint, uint8_t *_Nonnull out, size_t capacity);
/// Milliseconds until the handshake's retransmission timer fires; -1 when none runs.
long cdtls_endpoint_timeout_ms(cdtls_endpoint *_Nonnull endpoint);
/// Runs the retransmission timer (datagrams to send may be waiting after); -1 after too many.
int cdtls_endpoint_handle_timeout(cdtls_endpoint *_Nonnull endpoint);
/// The peer certificate's SHA-256 fingerprint into `out` (32 bytes); 0 on success, -1 without one.
int cdtls_endpoint_peer_fingerprint(cdtls_endpoint *_Nonnull endpoint, uint8_t *_Nonnull out);
/// The SRTP protection profile agreed (RFC 5764 / RFC 7714 id: 1 AES128_CM_SHA1_80, 7 AEAD_AES_128_GCM), 0 none.
int cdtls_endpoint_srtp_profile(cdtls_endpoint *_Nonnull endpoint);
/// The keying material of RFC 5764 section 4.2 ("EXTRACTOR-dtls_srtp"), `length` bytes; 0 on success.
int cdtls_endpoint_export_keying_material(cdtls_endpoint *_Nonnull endpoint, uint8_t *_Nonnull out, size_t length);

#endif
