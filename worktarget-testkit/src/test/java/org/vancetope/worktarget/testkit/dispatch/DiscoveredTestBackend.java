package org.vancetope.worktarget.testkit.dispatch;

import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;

/** A provider declared in META-INF/services for the discovery tests. */
public class DiscoveredTestBackend implements BackendToolProvider {
    @Override
    public String name() {
        return "discovered";
    }

    @Override
    public List<BackendTool> tools() {
        return List.of(BackendTool.of(ToolCatalog.backend("work_file_list").orElseThrow(),
                (p, c) -> Map.of("from", "discovered")));
    }
}
