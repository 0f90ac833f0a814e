package org.vancetope.worktarget.backend.daemon.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code worktarget.jar} command line: {@code daemon}, {@code serve} and {@code call}.
 *
 * <pre>{@code
 * java -jar worktarget.jar serve --port 7070 --workspace /srv/ws --tokens tokens.json
 * java -jar worktarget.jar daemon --connect ws://brain:7070/worktarget/v1 --token … \
 *      --tenant acme --project proj-research --name build-box-01 --workdir ~/src
 * java -jar worktarget.jar call --server http://127.0.0.1:7071 --admin-token … \
 *      --target DAEMON:build-box-01 file_read '{"path":"README.md"}'
 * }</pre>
 *
 * <p>Exit codes: {@value #OK} success, {@value #FAILED} the operation failed (e.g. the tool call
 * returned an error), {@value #USAGE} bad command line, {@value #REFUSED} refused by the server
 * (token, grants), {@value #UNREACHABLE} cannot connect or bind. It is a tool for operators and
 * demos, not an API: embed {@code WorkTargetServer} and {@code WorkTargetClient} instead.
 */
public final class Main {
    /** Success. */
    public static final int OK = 0;
    /** The operation ran and failed. */
    public static final int FAILED = 1;
    /** Bad command line. */
    public static final int USAGE = 2;
    /** The server refused the credentials or grants. */
    public static final int REFUSED = 3;
    /** Cannot connect, or cannot bind a port. */
    public static final int UNREACHABLE = 4;

    private Main() {
    }

    /**
     * Runs a command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", "info");
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        setDefault("org.slf4j.simpleLogger.showShortLogName", "true");
        setDefault("org.slf4j.simpleLogger.log.io.netty", "warn");
        System.exit(run(args, System.out, System.err));
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /**
     * Runs a command.
     *
     * @param args the command line
     * @param out where results go
     * @param err where messages for the user go
     * @return the exit code
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || "--help".equals(args[0]) || "-h".equals(args[0]) || "help".equals(args[0])) {
            out.println(USAGE_TEXT);
            return args.length == 0 ? USAGE : OK;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        try {
            return switch (args[0]) {
                case "daemon" -> DaemonCommand.run(rest, out, err);
                case "serve" -> ServeCommand.run(rest, out, err);
                case "call" -> CallCommand.run(rest, out, err);
                default -> {
                    err.println("Unknown command '" + args[0] + "'.");
                    err.println(USAGE_TEXT);
                    yield USAGE;
                }
            };
        } catch (Args.UsageException e) {
            err.println(e.getMessage() + " Run '" + args[0] + " --help' for the options.");
            return USAGE;
        }
    }

    static final String USAGE_TEXT = String.join("\n",
            "Usage: java -jar worktarget.jar <command> [options]",
            "",
            "Commands:",
            "  daemon   connect to a server as a named daemon and serve this machine's client tools",
            "  serve    run a standalone server with a WORK backend and a loopback admin API",
            "  call     run a tool through a server's admin API and print the JSON result",
            "",
            "Run '<command> --help' for its options.",
            "Exit codes: 0 ok, 1 failed, 2 usage, 3 refused by the server, 4 cannot connect or bind.");
}
