package org.vancetope.worktarget.backend.workspace.internal;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.workspace.RootDirInfo;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.internal.path.StagedFile;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Reads and writes RootDir descriptors: a {@code .properties} file per RootDir in the project's
 * {@code .rootdirs} directory, staged and renamed into place atomically through the workspace's
 * confined root (by directory handle, never following a link).
 */
public final class Descriptors {
    private static final Logger LOG = LoggerFactory.getLogger(Descriptors.class);
    /** The directory, inside the project directory, that holds the descriptors. */
    public static final String DIR = ".rootdirs";
    private static final String SUFFIX = ".properties";
    private static final String META = "metadata.";
    private static final String RUN = "run";

    private Descriptors() {
    }

    private static String file(String tenant, String project, String dirName) {
        return tenant + "/" + project + "/" + DIR + "/" + dirName + SUFFIX;
    }

    /**
     * Writes a descriptor atomically, naming the run of the backend that wrote it (see
     * {@code WorkspaceBackend.Builder.processesEndWithJvm}).
     *
     * @param workspace the workspace root
     * @param info the RootDir
     * @param run the id of the writing backend's run, or null
     * @throws IOException on failure
     */
    public static void write(ConfinedRoot workspace, RootDirInfo info, String run) throws IOException {
        Properties p = new Properties();
        if (run != null) {
            p.setProperty(RUN, run);
        }
        p.setProperty("type", info.type());
        p.setProperty("label", info.label());
        p.setProperty("creatorProcessId", info.creatorProcessId());
        p.setProperty("createdAt", info.createdAt().toString());
        p.setProperty("deleteOnCreatorClose", Boolean.toString(info.deleteOnCreatorClose()));
        info.metadata().forEach((k, v) -> p.setProperty(META + k, v));
        StringWriter text = new StringWriter();
        p.store(text, "WorkTarget RootDir " + info.dirName());
        try (StagedFile f = workspace.stage(workspace.resolve(file(info.tenant(), info.project(), info.dirName())))) {
            f.write(text.toString().getBytes(StandardCharsets.UTF_8));
            f.finishWriting(true);
            f.commit(null, null);
        } catch (ToolException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * A RootDir as its descriptor records it, and the run of the backend that wrote it.
     *
     * @param info the RootDir
     * @param run the id of the writing backend's run, or null when the descriptor names none (written without
     *     one, or by an older version)
     */
    public record Descriptor(RootDirInfo info, String run) {
    }

    /**
     * Reads a descriptor.
     *
     * @param workspace the workspace root
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir name
     * @return the RootDir and its run, or null when the descriptor is missing or unreadable (a damaged one is logged)
     */
    public static Descriptor read(ConfinedRoot workspace, String tenant, String project, String dirName) {
        Properties p = properties(workspace, tenant, project, dirName);
        if (p == null) {
            return null;
        }
        Map<String, String> metadata = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            if (k.startsWith(META)) {
                metadata.put(k.substring(META.length()), p.getProperty(k));
            }
        }
        Instant created;
        try {
            created = Instant.parse(p.getProperty("createdAt", "1970-01-01T00:00:00Z"));
        } catch (DateTimeParseException e) {
            created = Instant.EPOCH;
        }
        String type = p.getProperty("type");
        if (type == null) {
            return null;
        }
        return new Descriptor(new RootDirInfo(tenant, project, dirName, type, p.getProperty("label", ""),
                p.getProperty("creatorProcessId", ""), created,
                Boolean.parseBoolean(p.getProperty("deleteOnCreatorClose", "false")), metadata,
                workspace.root().resolve(tenant).resolve(project).resolve(dirName)), p.getProperty(RUN));
    }

    /** The descriptor's properties, or null when it is missing or unreadable (a damaged one is logged). */
    private static Properties properties(ConfinedRoot workspace, String tenant, String project, String dirName) {
        Properties p = new Properties();
        try (Reader r = new InputStreamReader(Channels.newInputStream(
                workspace.openFile(file(tenant, project, dirName)).channel()), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            return null;
        } catch (ToolException e) {
            if (e.code() != ErrorCode.NOT_FOUND) {
                LOG.warn("The descriptor of RootDir '{}' in {}/{} cannot be opened ({}); the RootDir is not listed.",
                        dirName, tenant, project, e.getMessage());
            }
            return null;
        } catch (IOException | IllegalArgumentException e) {
            // IllegalArgumentException: what Properties.load throws for a malformed backslash-u escape
            LOG.warn("The descriptor of RootDir '{}' in {}/{} ({}) cannot be read ({}); the RootDir is not listed, and "
                    + "its files stay where they are. Repair the descriptor, or delete it and the RootDir's directory.",
                    dirName, tenant, project, file(tenant, project, dirName), e.toString());
            return null;
        }
        return p;
    }

    /**
     * Deletes a descriptor.
     *
     * @param workspace the workspace root
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir name
     * @throws IOException on failure
     */
    public static void delete(ConfinedRoot workspace, String tenant, String project, String dirName) throws IOException {
        try {
            workspace.deleteTree(workspace.resolveEntry(file(tenant, project, dirName)));
        } catch (ToolException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * The RootDir names that have a descriptor in a project directory.
     *
     * @param workspace the workspace root
     * @param tenant the tenant
     * @param project the project
     * @return the names, unsorted
     * @throws IOException on failure
     */
    public static List<String> names(ConfinedRoot workspace, String tenant, String project) throws IOException {
        List<String> out = new ArrayList<>();
        Path dir;
        try {
            dir = workspace.resolve(tenant + "/" + project + "/" + DIR);
        } catch (ToolException e) {
            return out;
        }
        try (SafeDirectory d = workspace.open(dir)) {
            for (String n : d.names()) {
                if (!n.startsWith(".") && n.endsWith(SUFFIX)) {
                    out.add(n.substring(0, n.length() - SUFFIX.length()));
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return out;
        }
        return out;
    }
}
