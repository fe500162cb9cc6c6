import TestSupport
import Testing

/// The check every live session's output goes through finds a credential in either form it would leak in.
@Suite struct TestSecretsTests {
    @Test func aPasswordOrItsBasicTokenIsFoundAndNothingElse() {
        // `printf viewer:right-one | base64`
        #expect(TestSecrets.leaks(in: "Authorization: Basic dmlld2VyOnJpZ2h0LW9uZQ==") == ["dmlld2VyOnJpZ2h0LW9uZQ=="])
        #expect(TestSecrets.leaks(in: "401 from rtsp://viewer:s3cret-digest@cam") == ["s3cret-digest"])
        #expect(TestSecrets.leaks(in: "401 Unauthorized from rtsp://127.0.0.1:8554: check them").isEmpty)
        #expect(TestSecrets.forbidden.count == 2 * TestSecrets.credentials.count)
    }
}
