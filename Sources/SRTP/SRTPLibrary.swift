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
