package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.workspace.internal.Descriptors;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;

/**
 * The in-memory catalog of a workspace's RootDirs: the descriptors of each project, read from the
 * project's {@code .rootdirs} directory on first use and kept per {@code tenant/project}, and the lookups
 * by name.
 *
 * <p>It reads descriptors but never writes or deletes them and never touches a RootDir's folder:
 * {@link RootDirLifecycle} adds and removes entries as it creates and disposes RootDirs. Lookups do not
 * check names; callers pass safe segments.
 */
final class RootDirIndex {
    private static final Logger LOG = LoggerFactory.getLogger(RootDirIndex.class);

    private final Path root;
    /** The workspace's own layout (project directories, descriptors, RootDir folders) goes through this root. */
    private final ConfinedRoot workspace;
    private final Map<String, Map<String, RootDirInfo>> projects = new ConcurrentHashMap<>();
    private volatile boolean allLoaded;
    /** The runs named in the descriptors read from disk, by RootDir (see {@code processesEndWithJvm}). */
    private final Map<RootDirInfo, String> runs = new ConcurrentHashMap<>();

    RootDirIndex(Path root) throws IOException {
        this.root = root;
        this.workspace = ConfinedRoot.of(root);
    }

    /** The canonical workspace root. */
    Path root() {
        return root;
    }

    /** The confined root of the workspace's own layout. */
    ConfinedRoot workspace() {
        return workspace;
    }

    /** Where a project's RootDir folders live. */
    Path projectDir(String tenant, String project) {
        return root.resolve(tenant).resolve(project);
    }

    /**
     * The live, mutable map of a project's RootDirs by name, loaded from the descriptors on first use.
     *
     * @throws UncheckedIOException when the descriptors cannot be read
     */
    Map<String, RootDirInfo> project(String tenant, String project) {
        return projects.computeIfAbsent(tenant + '/' + project, k -> load(tenant, project));
    }

    List<String> names(String tenant, String project) {
        return project(tenant, project).keySet().stream().sorted().toList();
    }

    List<RootDirInfo> list(String tenant, String project) {
        return project(tenant, project).values().stream().sorted(Comparator.comparing(RootDirInfo::dirName)).toList();
    }

    Optional<RootDirInfo> find(String tenant, String project, String dirName) {
        return Optional.ofNullable(project(tenant, project).get(dirName));
    }

    /**
     * The run named in the descriptor a RootDir was read from.
     *
     * @param info a RootDir of this index
     * @return the run's id, or null when its descriptor names none or it was made since the index was loaded
     */
    String run(RootDirInfo info) {
        return runs.get(info);
    }

    /** Removes a disposed RootDir. */
    void remove(RootDirInfo info) {
        project(info.tenant(), info.project()).remove(info.dirName());
        runs.remove(info);
    }

    /** Every project's map, after loading every project found on disk ({@link #loadAll()}). */
    Collection<Map<String, RootDirInfo>> allProjects() {
        loadAll();
        return projects.values();
    }

    private Map<String, RootDirInfo> load(String tenant, String project) {
        Map<String, RootDirInfo> out = new ConcurrentHashMap<>();
        try {
            for (String name : Descriptors.names(workspace, tenant, project)) {
                if (!Segments.isSafe(name)) {
                    continue;
                }
                Descriptors.Descriptor d = Descriptors.read(workspace, tenant, project, name);
                if (d != null) {
                    out.put(name, d.info());
                    if (d.run() != null) {
                        runs.put(d.info(), d.run());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the RootDirs of " + tenant + "/" + project, e);
        }
        return out;
    }

    /** Loads every project directory of the workspace once; a failed scan is logged and tried again next time. */
    void loadAll() {
        if (allLoaded) {
            return;
        }
        try (SafeDirectory tenants = workspace.openRoot()) {
            for (String tenant : tenants.names()) {
                if (!Segments.isSafe(tenant) || !tenants.attributes(tenant).isDirectory()) {
                    continue;
                }
                // one directory that cannot be read (another user's lost+found) costs its own RootDirs, not the scan
                try (SafeDirectory projectDirs = tenants.openChild(tenant)) {
                    for (String project : projectDirs.names()) {
                        if (Segments.isSafe(project) && projectDirs.attributes(project).isDirectory()) {
                            try {
                                project(tenant, project);
                            } catch (UncheckedIOException e) {
                                LOG.warn("Skipped {}/{} of the workspace: {}", tenant, project, e.getCause().toString());
                            }
                        }
                    }
                } catch (IOException e) {
                    LOG.warn("Skipped {} of the workspace: {}", tenant, e.toString());
                }
            }
            allLoaded = true;
        } catch (IOException e) {
            LOG.warn("Scanning the workspace for RootDirs failed", e);
        }
    }
}
