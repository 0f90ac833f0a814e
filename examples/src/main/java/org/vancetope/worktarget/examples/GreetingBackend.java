package org.vancetope.worktarget.examples;

import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A custom WORK backend, discovered through {@link java.util.ServiceLoader}: it is listed in
 * {@code META-INF/services/org.vancetope.worktarget.spi.BackendToolProvider} of this module. It serves
 * {@code work_file_read} from memory, to show that a backend is just a named set of tools that keep
 * the catalog's parameter specs.
 */
public final class GreetingBackend implements BackendToolProvider {

    /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
    public GreetingBackend() {
    }

    @Override
    public String name() {
        return "greeting";
    }

    @Override
    public List<BackendTool> tools() {
        return List.of(BackendTool.of(ToolCatalog.backend("work_file_read").orElseThrow(), (params, ctx) -> {
            Object path = params.get("path");
            if (!"hello.txt".equals(path)) {
                throw new ToolException(ErrorCode.NOT_FOUND, "Only 'hello.txt' exists in the greeting backend.");
            }
            return Map.of("path", "hello.txt", "content", "Hello, " + ctx.tenant() + "/" + ctx.project() + "!\n",
                    "truncated", false);
        }));
    }
}
