import NIOSSL

/// Why a server could not start.
public struct RTSPServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a code to switch on.
    public enum Code: String, Sendable, Hashable {
        /// The TLS certificate or key could not be read or do not go together.
        case tlsFailed
        /// The multicast socket could not be made on the interface asked for.
        case multicastFailed
    }

    public let code: Code
    /// What happened and what to try.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}

extension RTSPServer {
    /// The TLS context of `tls`'s PEM files: the certificate chain, and the key, which must be the first
    /// certificate's.
    static func context(_ tls: Configuration.TLS) throws(RTSPServerError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tls.certificateFile)
        } catch {
            throw RTSPServerError(
                .tlsFailed,
                "cannot read the TLS certificate \(tls.certificateFile) (\(error)): give a PEM file of the certificate "
                    + "chain, the server's certificate first")
        }
        guard !chain.isEmpty else {
            throw RTSPServerError(.tlsFailed, "the TLS certificate \(tls.certificateFile) holds no PEM certificate")
        }
        do {
            key = try NIOSSLPrivateKey(file: tls.privateKeyFile, format: .pem)
        } catch {
            throw RTSPServerError(
                .tlsFailed,
                "cannot read the TLS key \(tls.privateKeyFile) (\(error)): give the certificate's private key, a PEM "
                    + "file without a passphrase")
        }
        do {
            return try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw RTSPServerError(
                .tlsFailed,
                "the key \(tls.privateKeyFile) is not the certificate's (\(error)): give the key the certificate was "
                    + "made for")
        }
    }
}
