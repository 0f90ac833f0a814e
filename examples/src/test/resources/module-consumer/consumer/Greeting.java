package consumer;

import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;

/** A backend found by ServiceLoader through the module's {@code provides}: it serves work_file_read. */
public final class Greeting implements BackendToolProvider {
    /** For ServiceLoader. */
    public Greeting() {
    }

    @Override
    public String name() {
        return "greeting";
    }

    @Override
    public List<BackendTool> tools() {
        return List.of(BackendTool.of(ToolCatalog.backend("work_file_read").orElseThrow(),
                (params, ctx) -> Map.of("path", params.get("path"), "content", "hello from a provided module",
                        "truncated", false)));
    }
}
