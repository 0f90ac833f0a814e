package org.vancetope.worktarget.testkit.dispatch;

import java.util.List;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;

/** A provider that claims a newer SPI version, for the discovery tests. */
public class FutureSpiBackend implements BackendToolProvider {
    @Override
    public String name() {
        return "future";
    }

    @Override
    public List<BackendTool> tools() {
        return List.of();
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION + 1;
    }
}
