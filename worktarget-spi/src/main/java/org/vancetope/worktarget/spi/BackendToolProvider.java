package org.vancetope.worktarget.spi;

import java.util.List;

/**
 * A named set of backend tools, e.g. the {@code work_file_*} and {@code work_exec_*} tools of the
 * workspace backend. Providers are handed to the dispatcher's builder, or discovered with
 * {@link java.util.ServiceLoader} (declare the implementation in
 * {@code META-INF/services/org.vancetope.worktarget.spi.BackendToolProvider}; it then needs a public
 * no-argument constructor).
 *
 * <p>Two providers must never offer the same tool name; discovery fails loudly when they do.
 */
public interface BackendToolProvider {

    /** The SPI version this interface describes; a provider built against another one is refused. */
    int SPI_VERSION = 1;

    /**
     * A short name for messages, e.g. {@code "workspace"}.
     *
     * @return the provider name
     */
    String name();

    /**
     * The tools this provider offers.
     *
     * @return the tools; names are unique within the provider
     */
    List<BackendTool> tools();

    /**
     * The SPI version the provider was built against.
     *
     * @return {@link #SPI_VERSION} unless overridden
     */
    default int spiVersion() {
        return SPI_VERSION;
    }

    /**
     * The process ended: free what this provider holds for it (for example its temporary RootDir and the
     * jobs it started). Called by the dispatcher's {@code processEnded}, after the process's last call;
     * must not throw. Default: nothing.
     *
     * @param process the process that ended
     */
    default void processEnded(ToolContext process) {
        // nothing to free
    }
}
