package org.vancetope.worktarget.backend.daemon.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.Properties;
import org.vancetope.worktarget.backend.daemon.internal.Args;

/**
 * The {@code worktarget.jar} command line: {@code daemon}, {@code serve} and {@code call}.
 *
 * <pre>{@code
 * WORKTARGET_ADMIN_TOKEN=… java -jar worktarget.jar serve --port 7070 --workspace /srv/ws --tokens tokens.json
 * WORKTARGET_TOKEN=… java -jar worktarget.jar daemon --connect ws://brain:7070/worktarget/v1 \
 *      --tenant acme --project proj-research --name build-box-01 --workdir ~/src
 * WORKTARGET_ADMIN_TOKEN=… java -jar worktarget.jar call --server http://127.0.0.1:7071 \
 *      --target DAEMON:build-box-01 file_read '{"path":"README.md"}'
 * }</pre>
 *
 * <p>Exit codes, the same for every command: {@value #OK} success (for {@code serve} and {@code daemon}:
 * stopped by SIGTERM or Ctrl-C), {@value #FAILED} the operation ran and failed (e.g. the tool call
 * returned an error), {@value #USAGE} bad command line or configuration, {@value #REFUSED} refused by the
 * server (token, grants), {@value #UNREACHABLE} cannot connect at start or cannot bind,
 * {@value #TIMEOUT} no answer in time. It is a tool for operators and demos, not an API: embed
 * {@code WorkTargetServer} and {@code WorkTargetClient} instead.
 */
public final class Main {
    /** Success; for the long-running commands, stopped by SIGTERM or Ctrl-C. */
    public static final int OK = 0;
    /** The operation ran and failed. */
    public static final int FAILED = 1;
    /** Bad command line or configuration. */
    public static final int USAGE = 2;
    /** The server refused the credentials or grants. */
    public static final int REFUSED = 3;
    /** Cannot connect at start, or cannot bind a port. */
    public static final int UNREACHABLE = 4;
    /** No answer in time ({@code call --timeout}). */
    public static final int TIMEOUT = 5;

    /** Whether this JVM runs {@link #main}: only then does a shutdown hook end the process itself. */
    private static volatile boolean standalone;

    private Main() {
    }

    /**
     * Runs a command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        standalone();
        System.exit(run(args, System.in, System.out, System.err));
    }

    /**
     * Prepares this JVM to run a command as the {@code worktarget.jar} process: the log format, and a
     * shutdown that exits {@link #OK} after a long-running command's cleanup
     * ({@link #exitFromShutdownHook()}). Every {@code main} of a runnable jar calls it first.
     *
     * <p>A JVM whose locale cannot encode file names outside ASCII (no {@code LANG} or {@code LC_ALL} in its
     * environment, as MCP clients start their servers) runs the same command line again under
     * {@code LC_ALL=C.UTF-8} and exits here with that process's code, once it ended.
     */
    public static void standalone() {
        // the log settings first: the relaunch check loads classes whose loggers would fix the format without them
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", "info");
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        setDefault("org.slf4j.simpleLogger.showShortLogName", "true");
        setDefault("org.slf4j.simpleLogger.log.io.netty", "warn");
        OptionalInt relaunched = Utf8Relaunch.ifNeeded();
        if (relaunched.isPresent()) {
            System.exit(relaunched.getAsInt());
        }
        Utf8Relaunch.watchParent();
        standalone = true;
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /**
     * The last word of a long-running command's shutdown hook: in the {@code worktarget.jar} process the
     * JVM would otherwise report the signal (143 for SIGTERM, 130 for Ctrl-C), so after the hook's cleanup
     * it halts with {@link #OK}, as the help promises. In any other JVM (a test, an embedding) it returns.
     */
    public static void exitFromShutdownHook() {
        if (standalone) {
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(OK);
        }
    }

    /**
     * Runs a command, with this process's standard input for {@code call -}.
     *
     * @param args the command line
     * @param out where results go
     * @param err where messages for the user go
     * @return the exit code
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, System.in, out, err);
    }

    /**
     * Runs a command.
     *
     * @param args the command line
     * @param in the standard input ({@code call -} reads the parameters from it)
     * @param out where results go
     * @param err where messages for the user go
     * @return the exit code
     */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return run(args, in, out, err, "");
    }

    /**
     * Runs a command of a command line that has more commands than these, which the caller runs itself (the
     * runnable jar's {@code mcp}): the usage printed for no command, {@code --help} or an unknown command
     * lists the caller's commands first.
     *
     * @param args the command line (not one of the caller's commands)
     * @param in the standard input ({@code call -} reads the parameters from it)
     * @param out where results go
     * @param err where messages for the user go
     * @param moreCommands the usage's lines for the caller's commands, each ending in a newline, in the form
     *                     of the others: {@code "  name     what it does\n"}
     * @return the exit code
     */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err, String moreCommands) {
        if (args.length == 0) {
            err.println(usage(moreCommands));
            return USAGE;
        }
        if (Args.isHelp(args[0]) || "help".equals(args[0])) {
            out.println(usage(moreCommands));
            return OK;
        }
        if ("--version".equals(args[0]) || "-V".equals(args[0]) || "version".equals(args[0])) {
            out.println("worktarget " + version());
            return OK;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        try {
            return switch (args[0]) {
                case "daemon" -> DaemonCommand.run(rest, out, err);
                case "serve" -> ServeCommand.run(rest, out, err);
                case "call" -> CallCommand.run(rest, in, out, err);
                default -> {
                    err.println("Unknown command '" + args[0] + "'. Run --help for the commands.");
                    err.println(usage(moreCommands));
                    yield USAGE;
                }
            };
        } catch (Args.UsageException e) {
            err.println(e.getMessage() + " Run '" + args[0] + " --help' for the options.");
            return USAGE;
        }
    }

    /**
     * The version of this build, from a resource the Maven build fills in.
     *
     * @return e.g. {@code 0.1.0-SNAPSHOT}
     */
    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version", "");
                if (!v.isBlank() && !v.startsWith("${")) {
                    return v;
                }
            }
        } catch (IOException e) {
            return "unknown (version.properties cannot be read: " + e.getMessage() + ")";
        }
        String manifest = Main.class.getPackage().getImplementationVersion();
        return manifest != null ? manifest : "unknown (not built by Maven)";
    }

    /**
     * The exit-code table of a command's help: the codes it can return, each with what it means there.
     *
     * @param rows code and meaning, alternating
     * @return the table, one line per code
     */
    static String exitCodes(Object... rows) {
        StringBuilder sb = new StringBuilder("Exit codes:");
        for (int i = 0; i + 1 < rows.length; i += 2) {
            sb.append("\n  ").append(rows[i]).append("  ").append(rows[i + 1]);
        }
        return sb.toString();
    }

    /** The usage of the whole command line, with these commands' lines listed before the others. */
    static String usage(String moreCommands) {
        return USAGE_HEAD + moreCommands + USAGE_TAIL;
    }

    private static final String USAGE_HEAD = String.join("\n",
            "Usage: java -jar worktarget.jar <command> [options]",
            "       java -jar worktarget.jar --version | --help",
            "",
            "Commands:",
            "");

    private static final String USAGE_TAIL = String.join("\n",
            "  daemon   connect to a server as a named daemon and serve this machine's client tools",
            "  serve    run a standalone server with a WORK backend and a loopback admin API",
            "  call     run a tool through a server's admin API and print the JSON result",
            "",
            "Run '<command> --help' (or -h) for its options. Pass tokens in the environment",
            "($WORKTARGET_TOKEN, $WORKTARGET_ADMIN_TOKEN), not as options: every user of the machine sees",
            "a command line in 'ps'.",
            "",
            exitCodes(OK, "success; serve and daemon: stopped by SIGTERM or Ctrl-C",
                    FAILED, "the operation ran and failed (call: the tool returned an error)",
                    USAGE, "bad command line or configuration (the message names the option or the line)",
                    REFUSED, "refused by the server (token, grants, a daemon name taken over)",
                    UNREACHABLE, "cannot connect at start, or cannot bind a port (the message names the cause)",
                    TIMEOUT, "call: no answer within --timeout (the call may still run on the server)"));
}
