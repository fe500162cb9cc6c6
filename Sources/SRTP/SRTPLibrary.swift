import CSRTP
import CSRTPLoader

/// libsrtp2, opened (and initialised with `srtp_init`) when the first receiver is made (`CSRTPLoader`): a
/// program that links this module but never receives SRTP does not load libsrtp2 or its crypto libraries.
enum SRTPLibrary {
    /// Its functions.
    ///
    /// - Throws: ``SRTPError`` `.library` naming what could not be loaded.
    static func functions() throws(SRTPError) -> csrtp_api {
        var reason = [CChar](repeating: 0, count: 512)
        guard let api = csrtp_load(&reason, reason.count) else {
            let detail = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SRTPError(
                .library,
                "libsrtp2 is not usable: \(detail); install it (Debian: apt-get install libsrtp2-1, or libsrtp2-dev;"
                    + " macOS: brew install srtp)")
        }
        return api.pointee
    }
}

extension SRTPLibrary {
    /// A libsrtp session for `key`: inbound (any SSRC, with a replay window) or outbound (any SSRC).
    static func session(key: SRTPKey, inbound: Bool, replayWindow: Int = 1024, library: csrtp_api) throws(SRTPError)
        -> srtp_t
    {
        var policy = srtp_policy_t()
        switch key.suite {
        case .aesCM128HMACSHA1_80:  // srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80, a macro for the default
            library.srtp_crypto_policy_set_rtp_default(&policy.rtp)
            library.srtp_crypto_policy_set_rtp_default(&policy.rtcp)
        case .aesCM128HMACSHA1_32:
            library.srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            library.srtp_crypto_policy_set_rtp_default(&policy.rtcp)
        case .aeadAES128GCM:
            library.srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            library.srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAES256GCM:
            library.srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            library.srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.window_size = UInt(min(max(replayWindow, 64), 0x7FFF))
        policy.allow_repeat_tx = 0
        policy.next = nil
        var material = key.material
        var created: srtp_t?
        let status = material.withUnsafeMutableBufferPointer { buffer -> srtp_err_status_t in
            policy.key = buffer.baseAddress
            return library.srtp_create(&created, &policy)  // libsrtp derives its session keys here; it keeps no pointer
        }
        for i in material.indices { material[i] = 0 }
        guard status == srtp_err_status_ok, let created else {
            throw SRTPError(
                .library,
                "libsrtp refused a \(key.suite) session (error \(status.rawValue)); this libsrtp may lack that suite")
        }
        return created
    }
}
