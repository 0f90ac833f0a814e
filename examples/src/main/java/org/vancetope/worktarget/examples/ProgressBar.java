package org.vancetope.worktarget.examples;

import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.vancetope.worktarget.core.transfer.TransferListener;

/**
 * The tour's progress bar, from the server's side: on a terminal one line per transfer, redrawn in place
 * ({@code \r}) as the bytes move and ended when the transfer is complete; otherwise (a pipe, a file, a CI
 * log) a plain line at every tenth.
 */
final class ProgressBar implements TransferListener {
    private static final int WIDTH = 30;
    private final PrintStream out;
    private final boolean terminal;
    private final Map<String, Integer> shown = new ConcurrentHashMap<>();

    /**
     * A progress bar.
     *
     * @param out where it is drawn
     * @param terminal whether {@code out} is a terminal (redraw in place) or not (plain lines)
     */
    ProgressBar(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /**
     * Whether this process's standard output is a terminal: {@link System#console()} exists and, on Java 22
     * and later (where it exists for a redirected output too), says it is one.
     *
     * @return true on a terminal
     */
    static boolean stdoutIsTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException e) {
            return true;    // before Java 22 a console exists only on a terminal
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    @Override
    public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
        int pct = totalBytes == 0 ? 100 : (int) (100 * bytesDone / totalBytes);
        int step = terminal ? pct : pct / 10;   // a terminal redraws at every percent, a log gets every tenth
        Integer before = shown.put(transferId, step);
        if (before != null && before == step) {
            return;
        }
        int filled = pct * WIDTH / 100;
        String line = String.format("  [%s] %3d%%  %,d / %,d bytes (%s)", "#".repeat(filled) + ".".repeat(WIDTH - filled),
                pct, bytesDone, totalBytes, role == Role.SENDER ? "sending" : "receiving");
        synchronized (out) {
            if (terminal) {
                out.print("\r" + line + (pct == 100 ? System.lineSeparator() : ""));
            } else {
                out.println(line);
            }
            out.flush();
        }
        if (pct == 100) {
            shown.remove(transferId);
        }
    }
}
