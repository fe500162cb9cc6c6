import NIOCore
import NIOSSL
@_spi(SansIO) import RTSP

/// The TLS side of `rtsps://` (RFC 7826 section 19): the client context made from the options, and the
/// handler that goes first in the connection's pipeline.
enum TLSContext {
    static func make(_ options: RTSPSessionOptions.TLS) throws(RTSPClientError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if !options.trustedCertificateFiles.isEmpty {
            configuration.trustRoots = .file(options.trustedCertificateFiles[0])
            if options.trustedCertificateFiles.count > 1 {
                configuration.additionalTrustRoots = options.trustedCertificateFiles.dropFirst().map { .file($0) }
            }
        }
        configuration.certificateVerification = options.verifiesCertificate ? .fullVerification : .none
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw RTSPClientError(
                .tlsFailed, "cannot set up TLS with \(options.trustedCertificateFiles): \(error); check the PEM files")
        }
    }

    /// The handler for a connection to `host`: its name is checked against the certificate (an address
    /// is checked against the certificate's IP addresses) and sent as SNI.
    static func handler(context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }

    /// A TLS failure in words, or nil when `error` is not one.
    static func describe(_ error: any Error, host: String) -> String? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the TLS certificate of \(host) is for other names; connect with a name it lists, or trust "
                + "the right certificate"
        }
        guard error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError else { return nil }
        return "the TLS handshake with \(host) failed: \(error); if the camera has its own or a self-signed "
            + "certificate, trust its PEM file (rtpdump --tls-trust, RTSPSessionOptions.tls)"
    }
}
