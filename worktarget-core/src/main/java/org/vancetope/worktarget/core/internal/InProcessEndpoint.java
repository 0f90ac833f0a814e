package org.vancetope.worktarget.core.internal;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileLockInterruptionException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The endpoint of tools that run in this JVM, on the caller's thread: the WORK target's backends, and
 * a {@code LocalBackend} as the client of every session. The timeout is not enforced (the tools have
 * limits of their own); there is no transfer connection.
 *
 * <p>A caller that interrupts the calling thread (a host's {@code Future.cancel(true)}, an MCP cancel)
 * breaks the file channel the tool was using: that failure is reported {@code cancelled}, not as an
 * internal error of the host.
 */
public final class InProcessEndpoint implements Endpoint {
    private final String description;
    private final Map<String, BackendTool> tools;
    private final List<ToolSpec> manifest;

    /**
     * Creates the endpoint.
     *
     * @param description who it is in messages, e.g. {@code the local client (/home/me/work)}
     * @param tools its tools
     */
    public InProcessEndpoint(String description, List<BackendTool> tools) {
        this.description = description;
        Map<String, BackendTool> byName = new LinkedHashMap<>();
        tools.forEach(t -> byName.put(t.spec().name(), t));
        this.tools = byName;
        this.manifest = tools.stream().map(BackendTool::spec).toList();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public List<ToolSpec> manifest() {
        return manifest;
    }

    @Override
    public Map<String, Object> invoke(String tool, Map<String, Object> params, ToolContext context, Duration timeout)
            throws ToolException {
        BackendTool t = tools.get(tool);
        if (t == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, description + " does not offer '" + tool + "'. It offers: "
                    + String.join(", ", tools.keySet()) + ".");
        }
        try {
            return t.invoke(params == null ? Map.of() : params, context);
        } catch (ToolException e) {
            if (e.code() == ErrorCode.INTERNAL && causedByInterrupt(e)) {
                throw cancelled(e.getMessage(), e);
            }
            throw e;
        } catch (RuntimeException e) {
            if (causedByInterrupt(e)) {
                throw cancelled(e.getClass().getSimpleName(), e);
            }
            throw e;
        }
    }

    /**
     * The failure of a call on a backend that was closed: a host that closed it too early.
     *
     * @param backend the backend in words, e.g. {@code "WORK backend"}
     * @param closeMethod the method that closed it, e.g. {@code "WorkspaceBackend.close()"}
     * @return the error, {@code internal}
     */
    public static ToolException closedBackend(String backend, String closeMethod) {
        return new ToolException(ErrorCode.INTERNAL, "The " + backend + " is closed (" + closeMethod + " was called), "
                + "so no call can run on it. The host must close it only after its last call, or build a new one.");
    }

    private static ToolException cancelled(String message, Exception e) {
        String where = message != null && message.endsWith(".") ? message.substring(0, message.length() - 1) : message;
        return new ToolException(ErrorCode.CANCELLED, "The call was cancelled because the calling thread was "
                + "interrupted (the tool stopped at: " + where + "). A file being written is left as it was; what the "
                + "call had finished before stays done.", e);
    }

    /**
     * Whether a failure is the doing of an interrupt: an interrupted wait, or a channel closed because its
     * thread was interrupted ({@link SocketTimeoutException}, an {@link InterruptedIOException} too, is not).
     *
     * @param failure the failure
     * @return true when an interrupt caused it
     */
    static boolean causedByInterrupt(Throwable failure) {
        Throwable t = failure.getCause();
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t instanceof InterruptedException || t instanceof ClosedByInterruptException
                    || t instanceof FileLockInterruptionException
                    || t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException)) {
                return true;
            }
        }
        return false;
    }
}
