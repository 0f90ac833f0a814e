package org.vancetope.worktarget.backend.workspace;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.RootDirHandle;

/**
 * A RootDir of a project as the workspace backend records it: where it is, its type, who created it
 * and whether it goes away when its creator closes. Its descriptor is stored beside the directory,
 * never inside it, so file tools cannot see or change it.
 *
 * @param tenant the tenant
 * @param project the project
 * @param dirName the RootDir's name, one path segment
 * @param type the type handler's name, e.g. {@code "temp"}
 * @param label a human-readable label (may be empty)
 * @param creatorProcessId the process that created it
 * @param createdAt when it was created
 * @param deleteOnCreatorClose whether closing the creator process disposes it
 * @param metadata handler-specific metadata
 * @param path the directory: {@code <workspaceRoot>/<tenant>/<project>/<dirName>}
 */
public record RootDirInfo(String tenant, String project, String dirName, String type, String label,
                          String creatorProcessId, Instant createdAt, boolean deleteOnCreatorClose,
                          Map<String, String> metadata, Path path) {

    /**
     * Validates and copies.
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir's name, one path segment
     * @param type the type handler's name, e.g. {@code "temp"}
     * @param label a human-readable label (may be empty)
     * @param creatorProcessId the process that created it
     * @param createdAt when it was created
     * @param deleteOnCreatorClose whether closing the creator process disposes it
     * @param metadata handler-specific metadata
     * @param path the directory: {@code <workspaceRoot>/<tenant>/<project>/<dirName>}
     */
    public RootDirInfo {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(dirName, "dirName");
        Objects.requireNonNull(type, "type");
        label = Objects.requireNonNullElse(label, "");
        Objects.requireNonNull(creatorProcessId, "creatorProcessId");
        Objects.requireNonNull(createdAt, "createdAt");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        Objects.requireNonNull(path, "path");
    }

    /**
     * The RootDir as its type handler sees it.
     *
     * @return the handle
     */
    public RootDirHandle handle() {
        return new RootDirHandle(tenant, project, dirName, type, path, metadata);
    }
}
