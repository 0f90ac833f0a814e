package org.vancetope.worktarget.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * One list of interceptors of the dispatcher and the link after it. Before routing (the user
 * interceptors) an interceptor may change the parameters and the target — the backend tool follows from
 * the target; after routing (the backend interceptors) only the parameters. The last link of the
 * backend chain is the endpoint call: whatever it throws besides a {@link ToolException} becomes
 * {@code internal} for that call alone.
 */
final class InterceptorChain implements ToolInterceptor.Chain {

    /** The link after the interceptors. */
    @FunctionalInterface
    interface Link {
        Map<String, Object> call(ToolInvocation invocation) throws ToolException;
    }

    private final List<ToolInterceptor> links;
    private final int index;
    private final ToolInvocation invocation;
    private final boolean mayReroute;
    private final Link terminal;

    InterceptorChain(List<ToolInterceptor> links, int index, ToolInvocation invocation, boolean mayReroute,
                     Link terminal) {
        this.links = links;
        this.index = index;
        this.invocation = invocation;
        this.mayReroute = mayReroute;
        this.terminal = terminal;
    }

    @Override
    public ToolInvocation invocation() {
        return invocation;
    }

    @Override
    public Map<String, Object> proceed(ToolInvocation next) throws ToolException {
        Objects.requireNonNull(next, "invocation");
        if (!next.tool().equals(invocation.tool()) || !next.context().equals(invocation.context())) {
            throw new IllegalStateException("An interceptor may not change the tool or the calling process of an "
                    + "invocation");
        }
        boolean rerouted = !next.target().equals(invocation.target());
        if (rerouted && !mayReroute) {
            throw new IllegalStateException("A backend interceptor runs after routing: it may change only the "
                    + "parameters of an invocation. Change the target in an interceptor (Builder.interceptor).");
        }
        if (!next.backendTool().equals(ToolInvocation.backendToolOf(next.tool(), next.target()))) {
            throw new IllegalStateException("The backend tool follows from the tool and the target; change the "
                    + "target with ToolInvocation.withTarget");
        }
        if (index < links.size()) {
            return links.get(index).intercept(new InterceptorChain(links, index + 1, next, mayReroute, terminal));
        }
        if (mayReroute) {
            return terminal.call(next); // routing: the backend chain below answers for the backend call
        }
        try {
            return terminal.call(next);
        } catch (ToolException e) {
            throw e;
        } catch (Throwable e) {
            // Errors too (StackOverflowError, OutOfMemoryError): the call gets an answer, the host carries on.
            // Not logged here: the dispatcher logs every internal failure once, with its cause
            throw new ToolException(ErrorCode.INTERNAL, next.tool() + " failed unexpectedly in " + next.backendTool()
                    + " (" + e.getClass().getSimpleName() + "). This is a bug on the host; retrying may not help.", e);
        }
    }
}
