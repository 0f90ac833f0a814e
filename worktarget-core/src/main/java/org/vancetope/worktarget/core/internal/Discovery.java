package org.vancetope.worktarget.core.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.BackendToolProvider;

/**
 * {@link ServiceLoader} discovery that is loud about what it finds: a provider that cannot be
 * instantiated is logged at ERROR and skipped (the others still load), a provider built against
 * another SPI version is refused with an exception.
 */
public final class Discovery {
    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);

    private Discovery() {
    }

    /**
     * Loads the backend tool providers visible to a class loader.
     *
     * @param loader the class loader, or null for the thread's context class loader
     * @return the providers, in discovery order
     * @throws IllegalStateException when a provider declares another SPI version
     */
    public static List<BackendToolProvider> backendProviders(ClassLoader loader) {
        ClassLoader cl = loader != null ? loader : Thread.currentThread().getContextClassLoader();
        List<BackendToolProvider> out = new ArrayList<>();
        Iterator<BackendToolProvider> it = ServiceLoader.load(BackendToolProvider.class, cl).iterator();
        while (true) {
            BackendToolProvider p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
            } catch (ServiceConfigurationError e) {
                LOG.error("Skipping a BackendToolProvider that could not be loaded: {}", e.getMessage(), e);
                continue;
            }
            checkVersion(p);
            LOG.info("Discovered backend tool provider '{}' ({})", p.name(), p.getClass().getName());
            out.add(p);
        }
        return out;
    }

    /**
     * Refuses a provider built for another SPI version.
     *
     * @param p the provider, discovered or given to the dispatcher's builder
     * @throws IllegalStateException when its {@link BackendToolProvider#spiVersion()} is not this one's
     */
    public static void checkVersion(BackendToolProvider p) {
        if (p.spiVersion() != BackendToolProvider.SPI_VERSION) {
            throw new IllegalStateException("BackendToolProvider " + p.getClass().getName() + " ('" + p.name()
                    + "') was built for SPI version " + p.spiVersion() + ", this WorkTarget speaks version "
                    + BackendToolProvider.SPI_VERSION + ". Use a matching version of the provider's jar.");
        }
    }
}
