package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.ChildJvm;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A {@code worktarget.jar} process started without a UTF-8 locale (as MCP clients start their servers)
 * runs itself again under {@code LC_ALL=C.UTF-8}, so that file names outside ASCII work; the launcher
 * passes SIGTERM on and takes the relaunched process with it when it is killed.
 */
class Utf8RelaunchTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ADMIN_PORT = Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/admin/v1/");
    private static final String ADMIN_TOKEN = "admin-token-utf8-relaunch";
    /** The environment an MCP client gives its server: no LANG, no LC_*; the POSIX locale. */
    private static final Map<String, String> NO_LOCALE = Map.of("LC_ALL", "", "LANG", "", "LC_CTYPE", "");
    private static final String NAME = "café-日本.txt";

    @TempDir
    Path dir;
    private final List<ChildJvm> children = new ArrayList<>();

    @AfterEach
    void stop() {
        children.forEach(ChildJvm::close);
    }

    @Test
    void aJvmThatCannotEncodeNamesOutsideAsciiRelaunches() {
        assertThat(Utf8Relaunch.needed("ANSI_X3.4-1968", '/', Map.of())).isTrue();
        assertThat(Utf8Relaunch.needed("ISO-8859-1", '/', Map.of())).isTrue();
    }

    @Test
    void aUtf8JvmWindowsAndTheRelaunchedProcessDoNotRelaunch() {
        assertThat(Utf8Relaunch.needed("UTF-8", '/', Map.of())).isFalse();
        assertThat(Utf8Relaunch.needed("utf8", '/', Map.of())).isFalse();
        assertThat(Utf8Relaunch.needed("Cp1252", '\\', Map.of())).as("Windows names are UTF-16").isFalse();
        assertThat(Utf8Relaunch.needed("ANSI_X3.4-1968", '/', Map.of(Utf8Relaunch.RELAUNCHED, "42")))
                .as("a process without the C.UTF-8 locale relaunches once, not for ever").isFalse();
    }

    @Test
    void theRelaunchRunsTheSameCommandLineUnderTheUtf8LocaleOnTheSameStreams() {
        ProcessBuilder pb = Utf8Relaunch.builder("/usr/bin/java", List.of("-Xmx1g", "-jar", "w.jar", "mcp"));
        assertThat(pb.command()).containsExactly("/usr/bin/java", "-Xmx1g", "-jar", "w.jar", "mcp");
        assertThat(pb.environment()).containsEntry("LC_ALL", "C.UTF-8")
                .containsEntry(Utf8Relaunch.RELAUNCHED, Long.toString(ProcessHandle.current().pid()));
        assertThat(pb.redirectInput()).isEqualTo(ProcessBuilder.Redirect.INHERIT);
        assertThat(pb.redirectOutput()).isEqualTo(ProcessBuilder.Redirect.INHERIT);
        assertThat(pb.redirectError()).isEqualTo(ProcessBuilder.Redirect.INHERIT);
    }

    private ChildJvm serveWithoutLocale(Path workspace) throws Exception {
        Path tokens = dir.resolve("tokens.json");
        Files.writeString(tokens, "{\"tokens\":[{\"token\":\"daemon-token-utf8\",\"subject\":\"box\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
        ChildJvm serve = ChildJvm.start("serve", dir.resolve("serve.log"), List.of(), List.of("serve",
                "--workspace", workspace.toString(), "--tokens", tokens.toString(), "--port", "0", "--admin-port", "0",
                "--admin-token", ADMIN_TOKEN), NO_LOCALE);
        children.add(serve);
        return serve;
    }

    private static Map<String, Object> call(HttpClient http, int port, String target, String tool,
                                            Map<String, Object> params) throws Exception {
        String body = JSON.writeValueAsString(Map.of("tenant", "acme", "project", "proj", "processId", "p-1",
                "target", target, "tool", tool, "params", params));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/admin/v1/call")).header("Authorization", "Bearer " + ADMIN_TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, Object> answer = JSON.readValue(r.body(), new TypeReference<Map<String, Object>>() { });
        assertThat(answer).as(tool).containsEntry("ok", true);
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) answer.get("result");
        return result;
    }

    @Test
    void serveStartedWithoutALocaleWritesAndListsNamesOutsideAscii() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("ws"));
        ChildJvm serve = serveWithoutLocale(workspace);
        int port = Integer.parseInt(serve.awaitLog(ADMIN_PORT));
        HttpClient http = HttpClient.newHttpClient();
        String dirName = (String) call(http, port, "WORK", "workspace_create_ephemeral_dir", Map.of()).get("dirName");

        call(http, port, "WORK:" + dirName, "file_write", Map.of("path", NAME, "content", "olé"));
        Map<String, Object> listed = call(http, port, "WORK:" + dirName, "file_list", Map.of("path", "."));

        assertThat(workspace.resolve("acme/proj/" + dirName + "/" + NAME)).hasContent("olé");
        assertThat(JSON.writeValueAsString(listed)).contains(NAME);
        assertThat(serve.log()).doesNotContain("File names outside ASCII cannot be read");
    }

    @Test
    void sigtermOfTheLauncherStopsTheRelaunchedProcessAndExitsWithItsCode() throws Exception {
        ChildJvm serve = serveWithoutLocale(Files.createDirectories(dir.resolve("ws")));
        serve.awaitLog(ADMIN_PORT);
        List<ProcessHandle> relaunched = ProcessHandle.of(serve.pid()).orElseThrow().children().toList();
        assertThat(relaunched).as("the launcher runs one process").hasSize(1);

        assertThat(serve.terminate()).as("serve's exit code after SIGTERM").isZero();

        Await.until("the relaunched serve ended", () -> !relaunched.get(0).isAlive());
    }

    @Test
    void killingTheLauncherEndsTheRelaunchedProcess() throws Exception {
        ChildJvm serve = serveWithoutLocale(Files.createDirectories(dir.resolve("ws")));
        serve.awaitLog(ADMIN_PORT);
        List<ProcessHandle> relaunched = ProcessHandle.of(serve.pid()).orElseThrow().children().toList();
        assertThat(relaunched).hasSize(1);

        serve.kill();

        Await.until("the relaunched serve ended after its launcher was killed", () -> !relaunched.get(0).isAlive());
    }
}
