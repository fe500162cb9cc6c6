/// The page `GET /NAME/` serves: a video element that plays `/NAME/whep` (a WHEP player in a few lines of the
/// browser's own WebRTC), so that a user opens a URL and sees the camera. `window.pc` is the connection (a test
/// reads its `getStats()`); `window.answeredAt` and `window.firstFrameAt` time the first picture painted. Opened
/// with `?talk`, it asks for the microphone and sends it too (two-way audio, where the mount has a talkback; a
/// browser gives the microphone only to a page on `localhost` or HTTPS).
enum PlayerPage {
    static func html(path: String) -> String {
        let name = path.filter { $0.isLetter || $0.isNumber || "-_./".contains($0) }
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>\(name)</title>
            <style>body{margin:0;background:#000}video{width:100vw;height:100vh}</style></head>
            <body><video id="video" autoplay muted playsinline controls></video>
            <script>
            const pc = new RTCPeerConnection();
            window.pc = pc;
            pc.addTransceiver('video', {direction: 'recvonly'});
            pc.ontrack = (event) => { document.getElementById('video').srcObject = event.streams[0] || new MediaStream([event.track]); };
            (async () => {
              if (new URLSearchParams(location.search).has('talk')) {
                const microphone = await navigator.mediaDevices.getUserMedia({audio: true});
                pc.addTransceiver(microphone.getAudioTracks()[0], {direction: 'sendrecv', streams: [microphone]});
              } else {
                pc.addTransceiver('audio', {direction: 'recvonly'});
              }
              await pc.setLocalDescription(await pc.createOffer());
              const response = await fetch('\(name == "/" ? "" : name)/whep', {method: 'POST', headers: {'Content-Type': 'application/sdp'}, body: pc.localDescription.sdp});
              if (response.status !== 201) { window.whepError = response.status + ' ' + await response.text(); return; }
              window.whepLocation = response.headers.get('Location');
              await pc.setRemoteDescription({type: 'answer', sdp: await response.text()});
              window.answeredAt = performance.now();
              const video = document.getElementById('video');
              if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(() => { window.firstFrameAt = performance.now(); });
            })().catch((error) => { window.whepError = String(error); });
            </script></body></html>
            """
    }
}
