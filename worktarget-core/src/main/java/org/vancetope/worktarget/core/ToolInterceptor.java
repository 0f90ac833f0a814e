package org.vancetope.worktarget.core;

import java.util.Map;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A link of the dispatcher's call chain, for cross-cutting concerns (audit, quotas, rewriting
 * parameters, short-circuiting). User interceptors run first, in the order they were added; the
 * backend call is the last link.
 *
 * <pre>{@code
 * ToolInterceptor audit = chain -> {
 *     log.info("{} on {}", chain.invocation().tool(), chain.invocation().target());
 *     return chain.proceed(chain.invocation());
 * };
 * }</pre>
 */
@FunctionalInterface
public interface ToolInterceptor {

    /**
     * Handles a call, usually by calling {@link Chain#proceed} once.
     *
     * @param chain the rest of the chain
     * @return the result
     * @throws ToolException to fail the call
     */
    Map<String, Object> intercept(Chain chain) throws ToolException;

    /** The rest of the chain, as one interceptor sees it. */
    interface Chain {
        /**
         * The invocation as it reached this link.
         *
         * @return the invocation
         */
        ToolInvocation invocation();

        /**
         * Passes the (possibly changed) invocation to the next link. The parameters may be changed
         * ({@link ToolInvocation#withParams}), and a user interceptor may route the call by another target
         * ({@link ToolInvocation#withTarget}, e.g. to WORK when the daemon is offline; the backend tool follows
         * from it). The tool and the calling process cannot be changed, nor the target by an interceptor that
         * runs after routing; trying throws {@link IllegalStateException}.
         *
         * @param invocation the invocation to pass on
         * @return the result
         * @throws ToolException when the call fails
         */
        Map<String, Object> proceed(ToolInvocation invocation) throws ToolException;
    }
}
