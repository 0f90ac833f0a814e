package org.vancetope.worktarget.backend.daemon.cli;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.internal.Args;
import org.vancetope.worktarget.backend.daemon.internal.Wire;

/** {@code call}: runs one tool through a server's admin API and prints the JSON result. */
final class CallCommand {
    /** The default of {@code --timeout}, in seconds. */
    static final int DEFAULT_TIMEOUT_SECONDS = 120;
    /** The most bytes of parameters sent: the admin API's body limit. */
    static final int MAX_PARAMS_BYTES = AdminServer.Limits.DEFAULT_MAX_BODY_BYTES;
    /** The call endpoint of the admin API. */
    private static final String CALL_PATH = "/admin/v1/call";
    static final String HELP = String.join("\n",
            "Usage: call --server URL --target TARGET [--tenant T --project P] [--process ID] [--session ID]",
            "            [--timeout SECONDS] TOOL ['JSON params' | @FILE | -]",
            "       call --server URL --end-process ID",
            "",
            "Runs TOOL (e.g. file_read, exec_run, work_target_get) through the dispatcher of a 'serve' and",
            "prints the result as JSON on stdout; errors go to stderr. The parameters are a JSON object: on",
            "the command line, from FILE (@FILE), or from the standard input (-); the last two take up to",
            "4 MiB, the admin API's limit (the command line has its own, about 128 KiB per word on Linux),",
            "of UTF-8 text (other bytes are refused, not replaced).",
            "",
            "  --server URL        the admin API, e.g. http://127.0.0.1:7071 (serve's --admin-port)",
            "  --admin-token T     the admin token; prefer $WORKTARGET_ADMIN_TOKEN or --admin-token-file: an",
            "                      option's value is visible to every user of the machine in 'ps'",
            "  --admin-token-file FILE  read the admin token from FILE, e.g. the one serve generated",
            "  --target TARGET     CLIENT, WORK, WORK:<dir> or DAEMON:<name>",
            "  --tenant/--project  the scope (optional when the target names exactly one connected peer)",
            "  --process ID        keep the call's process under this id (its target and temp RootDir persist);",
            "                      without it the call runs in a one-shot process that is closed after the call,",
            "                      with its temp RootDir and the RootDirs it made to be deleted with it",
            "  --end-process ID    end the named process ID instead of running a tool: its temp RootDir and the",
            "                      RootDirs it made to be deleted with it go, its jobs end (serve also ends a",
            "                      named process by itself after --process-idle-minutes without a call)",
            "  --session ID        the session (for CLIENT)",
            "  --timeout SECONDS   how long to wait for the answer (default " + DEFAULT_TIMEOUT_SECONDS + ")",
            "",
            Main.exitCodes(Main.OK, "the tool ran and its result is on stdout",
                    Main.FAILED, "the tool returned an error, or a transfer's result on stdout says ok: false (why: stderr)",
                    Main.USAGE, "bad command line or parameters, or the server found the call malformed",
                    Main.REFUSED, "wrong admin token",
                    Main.UNREACHABLE, "nothing answers at --server, or it is not serve's admin API",
                    Main.TIMEOUT, "no answer within --timeout (the call may still run on the server)"));

    private CallCommand() {
    }

    static int run(List<String> argv, InputStream in, PrintStream out, PrintStream err) throws Args.UsageException {
        Args a = Args.parse(argv, Set.of("server", "admin-token", "admin-token-file", "target", "tenant", "project", "process", "session",
                "timeout", "end-process"), Set.of("help"));
        if (a.flag("help")) {
            out.println(HELP);
            return Main.OK;
        }
        List<String> pos = a.positional();
        String ending = a.get("end-process", null);
        if (ending != null) {
            if (!pos.isEmpty() || a.has("target") || a.has("process")) {
                throw new Args.UsageException("--end-process takes no tool, --target or --process: give only "
                        + "--server and the process id.");
            }
        } else if (pos.isEmpty() || pos.size() > 2) {
            throw new Args.UsageException("Give the tool name and optionally its JSON parameters (JSON, @FILE or -).");
        }
        String token = a.has("admin-token-file") ? tokenFile(a.require("admin-token-file"))
                : a.get("admin-token", System.getenv("WORKTARGET_ADMIN_TOKEN"));
        if (token == null || token.isBlank()) {
            throw new Args.UsageException("Missing the admin token: set $WORKTARGET_ADMIN_TOKEN, or give "
                    + "--admin-token-file (or --admin-token).");
        }
        int timeout = a.intOption("timeout", DEFAULT_TIMEOUT_SECONDS, 1, Integer.MAX_VALUE);
        HttpRequest req;
        URI uri;
        if (ending != null) {
            if (ending.isBlank()) {
                throw new Args.UsageException("--end-process needs the process id.");
            }
            uri = adminUri(a.require("server"), AdminServer.PROCESSES_PATH
                    + java.net.URLEncoder.encode(ending, StandardCharsets.UTF_8).replace("+", "%20"));
            req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(timeout))
                    .header("Authorization", "Bearer " + token).DELETE().build();
        } else {
            uri = adminUri(a.require("server"), CALL_PATH);
            ObjectNode body = Wire.mapper().createObjectNode();
            body.put("target", a.require("target"));
            body.put("tool", pos.get(0));
            putIfSet(body, "tenant", a.get("tenant", null));
            putIfSet(body, "project", a.get("project", null));
            putIfSet(body, "processId", a.get("process", null));
            putIfSet(body, "sessionId", a.get("session", null));
            body.set("params", params(pos.size() == 2 ? pos.get(1) : null, in));
            byte[] json;
            try {
                // Jackson's own UTF-8 writer: a string with half a surrogate pair (a JSON escape the parameters
                // may carry) goes out as that escape, so the server refuses it and says where, where encoding
                // the text as UTF-8 here would have made it a '?' silently; whole pairs go out as UTF-8
                json = Wire.mapper().writer().with(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
                        .writeValueAsBytes(body);
            } catch (IOException e) {
                throw new Args.UsageException("The parameters cannot be sent as JSON: " + e.getMessage());
            }
            req = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(timeout))
                    .header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(json))
                    .build();
        }
        HttpResponse<String> res;
        try {
            res = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(timeout)).build()
                    .send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException e) {
            err.println("Cannot reach " + uri + ": no answer to the connection within " + timeout + " s. Is the host "
                    + "up, and does a firewall let the port through?");
            return Main.UNREACHABLE;
        } catch (HttpTimeoutException e) {
            err.println("No answer from " + uri + " within " + timeout + " s (--timeout). The call may still run on "
                    + "the server: look at serve's log, or call again with a larger --timeout.");
            return Main.TIMEOUT;
        } catch (ConnectException e) {
            for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (c instanceof java.nio.channels.UnresolvedAddressException || c instanceof java.net.UnknownHostException) {
                    err.println("Cannot reach " + uri + ": the host '" + uri.getHost() + "' does not resolve. Check the "
                            + "host name in --server (DNS, /etc/hosts).");
                    return Main.UNREACHABLE;
                }
            }
            err.println("Cannot reach " + uri + ": nothing accepts connections there. Is 'serve' running, and is "
                    + uri.getPort() + " its admin port (--admin-port, default --port + 1)?");
            return Main.UNREACHABLE;
        } catch (IOException e) {
            err.println("The call to " + uri + " failed: " + e + ". Is 'serve' running, and is this its admin API "
                    + "(http://, not https://)? It also closes connections beyond the "
                    + AdminServer.Limits.DEFAULT_MAX_CONNECTIONS + " it holds at once: then call again later.");
            return Main.UNREACHABLE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("Interrupted while waiting for " + uri + "; the call may still run on the server.");
            return Main.FAILED;
        }
        JsonNode answer;
        try {
            answer = Wire.mapper().readTree(res.body());
        } catch (IOException e) {
            answer = null;
        }
        if (answer == null || !answer.isObject() || !answer.has("ok")) {
            err.println(uri + " answered HTTP " + res.statusCode() + " without the admin API's JSON: it is not serve's "
                    + "admin API. Point --server at serve's --admin-port (default --port + 1), not at its WebSocket port.");
            return Main.UNREACHABLE;
        }
        if (answer.path("ok").asBoolean(false)) {
            JsonNode result = answer.get("result");
            try {
                out.println(Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(result));
            } catch (IOException e) {
                err.println("Cannot print the result: " + e.getMessage());
                return Main.FAILED;
            }
            if (result != null && result.path("ok").isBoolean() && !result.path("ok").booleanValue()) {
                // a transfer that did not succeed: its whole result is on stdout, and the call failed
                err.println(notOk(result));
                return Main.FAILED;
            }
            return Main.OK;
        }
        JsonNode error = answer.get("error");
        err.println("error " + (error == null ? "internal" : error.path("code").asText("internal")) + ": "
                + (error == null ? "HTTP " + res.statusCode() : error.path("message").asText("")));
        if (res.statusCode() == 401) {
            return Main.REFUSED;
        }
        return res.statusCode() == 400 ? Main.USAGE : Main.FAILED;
    }

    /**
     * The line on stderr for a result with {@code ok: false}: its code and error, or, for a directory transfer
     * whose entries failed one by one, how many did and the first of them.
     */
    static String notOk(JsonNode result) {
        if (result.hasNonNull("error")) {
            return "error " + result.path("code").asText("internal") + ": " + result.path("error").asText();
        }
        int failed = 0;
        JsonNode first = null;
        for (JsonNode e : result.path("entries")) {
            if ("failed".equals(e.path("status").asText())) {
                failed++;
                first = first == null ? e : first;
            }
        }
        if (first == null) {
            return "error internal: the result says ok: false without saying why (it is on stdout)";
        }
        return "error " + first.path("code").asText("internal") + ": " + failed + " of "
                + result.path("entries").size() + " entries failed (every entry's outcome is on stdout); the first, '"
                + first.path("path").asText().replaceAll("\\p{Cntrl}", "?") + "': " + first.path("error").asText();
    }

    private static String tokenFile(String file) throws Args.UsageException {
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            throw new Args.UsageException("Cannot read --admin-token-file " + file + ": there is no such file. serve "
                    + "names its token file in its log.");
        } catch (IOException e) {
            throw new Args.UsageException("Cannot read --admin-token-file " + file + ": " + e + ".");
        }
    }

    /**
     * An endpoint under {@code --server} (which may name the call endpoint itself): an http(s) URL with a host;
     * anything else is a usage error.
     */
    private static URI adminUri(String server, String path) throws Args.UsageException {
        String base = server.replaceAll("/+$", "");
        base = base.endsWith(CALL_PATH) ? base.substring(0, base.length() - CALL_PATH.length()) : base;
        URI uri;
        try {
            uri = URI.create(base + path);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--server is not a URL: " + e.getMessage() + ".");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("ws") || scheme.equals("wss")) {
            throw new Args.UsageException("--server " + server + " is a WebSocket URL; call talks to serve's admin API "
                    + "over HTTP: use http://127.0.0.1:ADMIN-PORT (serve's --admin-port, default --port + 1).");
        }
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new Args.UsageException("--server must be an http:// URL with a host, e.g. http://127.0.0.1:7071; "
                    + "got '" + server + "'.");
        }
        return uri;
    }

    /** The parameters: JSON text, {@code @FILE} or {@code -} (standard input); none means {@code {}}. */
    private static JsonNode params(String given, InputStream in) throws Args.UsageException {
        String text;
        String where;
        if (given == null) {
            text = "{}";
            where = "The parameters";
        } else if (given.equals("-")) {
            where = "The parameters on the standard input";
            try {
                byte[] bytes = in.readNBytes(MAX_PARAMS_BYTES + 1);
                if (bytes.length > MAX_PARAMS_BYTES) {
                    throw tooLarge(where, "more than " + MAX_PARAMS_BYTES + " bytes");
                }
                text = utf8(bytes, where);
            } catch (IOException e) {
                throw new Args.UsageException("Cannot read the parameters from the standard input: " + e.getMessage()
                        + ".");
            }
        } else if (given.startsWith("@")) {
            Path file = Path.of(given.substring(1));
            try {
                long size = Files.size(file);
                if (size > MAX_PARAMS_BYTES) {
                    throw tooLarge("The parameters in " + file, size + " bytes");
                }
                text = utf8(Files.readAllBytes(file), "The parameters in " + file);
            } catch (NoSuchFileException e) {
                throw new Args.UsageException("Cannot read the parameters from " + given + ": there is no file "
                        + file.toAbsolutePath() + ".");
            } catch (IOException e) {
                throw new Args.UsageException("Cannot read the parameters from " + given + ": " + e + ".");
            }
            where = "The parameters in " + file;
        } else {
            text = given;
            where = "The parameters";
            int bad = text.indexOf('\uFFFD');
            if (bad >= 0) {
                // the JVM decodes the command line in the locale's charset and puts U+FFFD where bytes do not
                // decode: sent on, a file_write would store U+FFFD where the caller's characters were
                throw new Args.UsageException("The parameters on the command line hold bytes that are not text in "
                        + "this locale (character " + bad + " became U+FFFD; the command line is read as "
                        + System.getProperty("sun.jnu.encoding") + "). Pass them with @FILE or - (both read as "
                        + "UTF-8), run with a UTF-8 locale (LANG=C.UTF-8), or write the character as a \\u escape.");
            }
        }
        JsonNode params;
        try {
            params = Wire.mapper().readTree(text);
        } catch (IOException e) {
            throw new Args.UsageException(where + " are not valid JSON: " + e.getMessage().lines().findFirst()
                    .orElse("") + ".");
        }
        if (params == null || !params.isObject()) {
            throw new Args.UsageException(where + " must be a JSON object, e.g. '{\"path\":\"README.md\"}'.");
        }
        return params;
    }

    /**
     * The parameters' bytes as text, refused when they are not UTF-8 (JSON's encoding): decoding them with
     * replacement would send U+FFFD where the caller's bytes were, and a file_write would store it.
     */
    private static String utf8(byte[] bytes, String where) throws Args.UsageException {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult r = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(in, out, true);
        if (r.isError()) {
            throw new Args.UsageException(where + " are not UTF-8 text (the byte at offset " + in.position()
                    + " starts no UTF-8 character); JSON is UTF-8. Save them as UTF-8 (for example with iconv -f latin1 "
                    + "-t utf-8), or write such characters as \\u escapes.");
        }
        return out.flip().toString();
    }

    /** Parameters over the admin API's body limit: refused before they are read whole, or sent. */
    private static Args.UsageException tooLarge(String where, String size) {
        return new Args.UsageException(where + " are " + size + "; serve's admin API takes at most "
                + MAX_PARAMS_BYTES + " bytes (4 MiB) per call. Move big content with a file transfer instead "
                + "(client_file_upload, or file_write in parts).");
    }

    private static void putIfSet(ObjectNode body, String field, String value) {
        if (value != null && !value.isBlank()) {
            body.put(field, value);
        }
    }
}
