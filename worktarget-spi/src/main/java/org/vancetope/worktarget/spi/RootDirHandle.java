package org.vancetope.worktarget.spi;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * A RootDir as its type handler sees it.
 *
 * @param tenant the tenant
 * @param project the project
 * @param dirName the RootDir's name within the project
 * @param type the handler type, e.g. {@code "temp"}
 * @param path the directory on disk (may not exist yet before {@code init})
 * @param metadata handler-specific metadata
 */
public record RootDirHandle(String tenant, String project, String dirName, String type, Path path,
                            Map<String, String> metadata) {
    /**
     * Validates and copies.
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir's name within the project
     * @param type the handler type, e.g. {@code "temp"}
     * @param path the directory on disk (may not exist yet before {@code init})
     * @param metadata handler-specific metadata
     */
    public RootDirHandle {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(dirName, "dirName");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(path, "path");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }
}
