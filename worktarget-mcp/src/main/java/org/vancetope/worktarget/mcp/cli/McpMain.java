package org.vancetope.worktarget.mcp.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.vancetope.worktarget.backend.daemon.cli.Main;

/**
 * The {@code worktarget.jar} command line with the {@code mcp} command: {@code mcp} runs an MCP server,
 * every other command ({@code daemon}, {@code serve}, {@code call}) is backend-daemon's {@link Main}.
 *
 * <pre>{@code
 * java -jar worktarget.jar mcp --workdir ~/project                    # stdio, for an MCP client's config
 * java -jar worktarget.jar mcp --http 8080 --workspace /srv/ws --tokens tokens.json
 * }</pre>
 *
 * <p>Exit codes are {@link Main}'s. Logs go to stderr only: over stdio, stdout is the protocol.
 */
public final class McpMain {
    private McpMain() {
    }

    /**
     * Runs a command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        setDefault("org.slf4j.simpleLogger.logFile", "System.err");      // stdout is the MCP protocol
        setDefault("org.slf4j.simpleLogger.log.io.modelcontextprotocol", "warn");
        Main.standalone();      // the log format, and exit 0 after a SIGTERM's cleanup (serve, daemon, mcp --http)
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
     * @param out where results go (over stdio: the MCP protocol)
     * @param err where messages for the user go
     * @return the exit code
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && "mcp".equals(args[0])) {
            return McpCommand.run(Arrays.asList(args).subList(1, args.length), System.in, out, err);
        }
        return Main.run(args, System.in, out, err, MCP_USAGE);
    }

    /** The {@code mcp} command's lines in the usage of the whole command line. */
    private static final String MCP_USAGE = String.join("\n",
            "  mcp      serve the tools to an MCP client: over stdio on this machine, or over HTTP with a WORK",
            "           backend and connected daemons",
            "");
}
