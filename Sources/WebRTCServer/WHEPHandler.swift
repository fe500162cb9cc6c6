@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import Logging
import NIOCore
import NIOHTTP1
import RTP
@_spi(SansIO) import WebRTC

/// One HTTP connection of the WHEP endpoint (RFC 9725): `POST /NAME/whep` with an offer answers `201 Created` with
/// the answer and the viewer's `Location`; `DELETE` on it ends the viewer; `OPTIONS` answers CORS; `PATCH` (trickle
/// ICE) is 405, as the RFC allows an ICE-lite server; `GET /NAME/` is the player page. Bodies are bounded; the
/// token, when the server has one, is asked as `Authorization: Bearer`.
final class WHEPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: WebRTCServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(server: WebRTCServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
            body = []
            tooLarge = false
        case .body(var chunk):
            if body.count + chunk.readableBytes > server.configuration.maxOfferBytes {
                tooLarge = true
            } else if let bytes = chunk.readBytes(length: chunk.readableBytes) {
                body += bytes
            }
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private static let cors: [(String, String)] = [
        ("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Methods", "POST, DELETE, OPTIONS, PATCH"),
        ("Access-Control-Allow-Headers", "Content-Type, Authorization, If-Match"),
        ("Access-Control-Expose-Headers", "Location, Link"),
    ]

    /// Writes a whole response (with the CORS headers every answer carries).
    private func send(
        _ status: HTTPResponseStatus, _ text: String, type: String = "text/plain; charset=utf-8",
        _ extra: [(String, String)] = [],
        version: HTTPVersion, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders(Self.cors + extra)
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(text.utf8.count)")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(request.uri.split(separator: "?", maxSplits: 1).first ?? "")
        let version = request.version
        func send(
            _ status: HTTPResponseStatus, _ text: String, type: String = "text/plain; charset=utf-8",
            _ extra: [(String, String)] = []
        ) {
            self.send(status, text, type: type, extra, version: version, context: context)
        }
        if request.method == .OPTIONS { return send(.noContent, "") }
        if tooLarge {
            return send(.payloadTooLarge, "an offer is at most \(server.configuration.maxOfferBytes) bytes\n")
        }
        if let token = server.configuration.bearerToken, request.method != .GET,
            request.headers.first(name: "Authorization") != "Bearer \(token)"
        {
            return send(
                .unauthorized, "this endpoint asks for its token: Authorization: Bearer TOKEN\n",
                [("WWW-Authenticate", "Bearer")])
        }
        let parts = path.split(separator: "/").map(String.init)
        // Answers that wait for the viewers' event loop are written back on this connection's.
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        switch request.method {
        case .POST where parts.last == "whep":
            let mount = "/" + parts.dropLast().joined(separator: "/")
            guard request.headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/sdp") == true else {
                return send(.unsupportedMediaType, "an offer is posted as Content-Type: application/sdp\n")
            }
            let offer = String(decoding: body, as: UTF8.self)
            server.admit(offer: offer, at: mount).hop(to: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                switch result {
                case .success(let (id, answer)):
                    let location = mount == "/" ? "/whep/\(id)" : "\(mount)/whep/\(id)"
                    handler.send(
                        .created, answer, type: "application/sdp", [("Location", location)], version: version,
                        context: context)
                case .failure(let error as WHEPRefusal):
                    handler.send(error.status, error.reason + "\n", version: version, context: context)
                case .failure(let error):
                    handler.send(.internalServerError, "\(error)\n", version: version, context: context)
                }
            }
        case .DELETE where parts.count >= 2 && parts[parts.count - 2] == "whep":
            server.end(viewer: parts[parts.count - 1]).hop(to: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                if case .success(true) = result {
                    handler.send(.ok, "", version: version, context: context)
                } else {
                    handler.send(.notFound, "no such viewer\n", version: version, context: context)
                }
            }
        case .PATCH:
            send(
                .methodNotAllowed, "this server is ICE-lite and does not take trickled candidates\n",
                [("Allow", "POST, DELETE, OPTIONS")])
        case .GET where server.hasSource(at: "/" + parts.joined(separator: "/")):
            send(.ok, PlayerPage.html(path: "/" + parts.joined(separator: "/")), type: "text/html; charset=utf-8")
        default:
            send(.notFound, "nothing is served at \(path.prefix(200))\n")
        }
    }
}

/// A WHEP request refused: its status and why.
struct WHEPRefusal: Error {
    let status: HTTPResponseStatus
    let reason: String
}
