package org.vancetope.worktarget.backend.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.internal.Wire;

/** {@code call}: runs one tool through a server's admin API and prints the JSON result. */
final class CallCommand {
    static final String HELP = String.join("\n",
            "Usage: call --server URL --admin-token TOKEN --target TARGET [--tenant T --project P]",
            "            [--process ID] [--session ID] [--timeout SECONDS] TOOL ['JSON params']",
            "",
            "Runs TOOL (e.g. file_read, exec_run, work_target_get) through the dispatcher of a 'serve' and",
            "prints the result as JSON on stdout; errors go to stderr.",
            "",
            "  --server URL        the admin API, e.g. http://127.0.0.1:7071",
            "  --admin-token T     the admin token (default: $WORKTARGET_ADMIN_TOKEN)",
            "  --target TARGET     CLIENT, WORK, WORK:<dir> or DAEMON:<name>",
            "  --tenant/--project  the scope (optional when the target names exactly one connected peer)",
            "  --process ID        keep the call's process under this id (its target and temp RootDir persist);",
            "                      without it the call runs in a one-shot process that is closed after the call,",
            "                      with its temp RootDir and the RootDirs it made to be deleted with it",
            "  --session ID        the session (for CLIENT)",
            "  --timeout SECONDS   how long to wait for the answer (default 120)",
            "",
            "Exit codes: 0 ok, 1 the tool failed, 2 usage, 3 wrong admin token, 4 server unreachable.");

    private CallCommand() {
    }

    static int run(List<String> argv, PrintStream out, PrintStream err) throws Args.UsageException {
        Args a = Args.parse(argv, Set.of("server", "admin-token", "target", "tenant", "project", "process", "session",
                "timeout"), Set.of("help"));
        if (a.flag("help")) {
            out.println(HELP);
            return Main.OK;
        }
        List<String> pos = a.positional();
        if (pos.isEmpty() || pos.size() > 2) {
            throw new Args.UsageException("Give the tool name and optionally its JSON parameters.");
        }
        String token = a.get("admin-token", System.getenv("WORKTARGET_ADMIN_TOKEN"));
        if (token == null || token.isBlank()) {
            throw new Args.UsageException("Missing --admin-token (or $WORKTARGET_ADMIN_TOKEN).");
        }
        ObjectNode body = Wire.mapper().createObjectNode();
        body.put("target", a.require("target"));
        body.put("tool", pos.get(0));
        putIfSet(body, "tenant", a.get("tenant", null));
        putIfSet(body, "project", a.get("project", null));
        putIfSet(body, "processId", a.get("process", null));
        putIfSet(body, "sessionId", a.get("session", null));
        try {
            JsonNode params = Wire.mapper().readTree(pos.size() == 2 ? pos.get(1) : "{}");
            if (params == null || !params.isObject()) {
                throw new Args.UsageException("The parameters must be a JSON object, e.g. '{\"path\":\"README.md\"}'.");
            }
            body.set("params", params);
        } catch (IOException e) {
            throw new Args.UsageException("The parameters are not valid JSON: " + e.getMessage().lines().findFirst()
                    .orElse(""));
        }
        URI uri;
        try {
            String base = a.require("server");
            uri = URI.create(base.endsWith("/admin/v1/call") ? base : base.replaceAll("/+$", "") + "/admin/v1/call");
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--server is not a URL: " + e.getMessage());
        }
        HttpRequest req = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(a.intOption("timeout", 120)))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> res;
        try {
            res = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            err.println("Cannot reach " + uri + ". Is 'serve' running, and is this its admin port?");
            return Main.UNREACHABLE;
        } catch (IOException e) {
            err.println("The call to " + uri + " failed: " + e.getMessage());
            return Main.UNREACHABLE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Main.FAILED;
        }
        JsonNode answer;
        try {
            answer = Wire.mapper().readTree(res.body());
        } catch (IOException e) {
            err.println("The server answered HTTP " + res.statusCode() + " without JSON.");
            return Main.FAILED;
        }
        if (answer != null && answer.path("ok").asBoolean(false)) {
            try {
                out.println(Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(answer.get("result")));
            } catch (IOException e) {
                err.println("Cannot print the result: " + e.getMessage());
                return Main.FAILED;
            }
            return Main.OK;
        }
        JsonNode error = answer == null ? null : answer.get("error");
        err.println("error " + (error == null ? "internal" : error.path("code").asText("internal")) + ": "
                + (error == null ? "HTTP " + res.statusCode() : error.path("message").asText("")));
        if (res.statusCode() == 401) {
            return Main.REFUSED;
        }
        return res.statusCode() == 400 ? Main.USAGE : Main.FAILED;
    }

    private static void putIfSet(ObjectNode body, String field, String value) {
        if (value != null && !value.isBlank()) {
            body.put(field, value);
        }
    }
}
