package org.vancetope.worktarget.backend.workspace.internal;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import org.vancetope.worktarget.backend.workspace.RootDirInfo;

/**
 * Reads and writes RootDir descriptors: a {@code .properties} file per RootDir in the project's
 * {@code .rootdirs} directory, written through a temp file and an atomic rename.
 */
public final class Descriptors {
    /** The directory, inside the project directory, that holds the descriptors. */
    public static final String DIR = ".rootdirs";
    private static final String SUFFIX = ".properties";
    private static final String META = "metadata.";

    private Descriptors() {
    }

    /**
     * The descriptor file of a RootDir.
     *
     * @param projectDir the project directory
     * @param dirName the RootDir name
     * @return the file
     */
    public static Path file(Path projectDir, String dirName) {
        return projectDir.resolve(DIR).resolve(dirName + SUFFIX);
    }

    /**
     * Writes a descriptor atomically.
     *
     * @param projectDir the project directory
     * @param info the RootDir
     * @throws IOException on failure
     */
    public static void write(Path projectDir, RootDirInfo info) throws IOException {
        Properties p = new Properties();
        p.setProperty("type", info.type());
        p.setProperty("label", info.label());
        p.setProperty("creatorProcessId", info.creatorProcessId());
        p.setProperty("createdAt", info.createdAt().toString());
        p.setProperty("deleteOnCreatorClose", Boolean.toString(info.deleteOnCreatorClose()));
        info.metadata().forEach((k, v) -> p.setProperty(META + k, v));
        Path dir = Files.createDirectories(projectDir.resolve(DIR));
        Path tmp = dir.resolve("." + UUID.randomUUID() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "WorkTarget RootDir " + info.dirName());
        }
        try {
            Files.move(tmp, file(projectDir, info.dirName()), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /**
     * Reads a descriptor.
     *
     * @param projectDir the project directory
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir name
     * @return the RootDir, or null when the descriptor is missing or unreadable
     */
    public static RootDirInfo read(Path projectDir, String tenant, String project, String dirName) {
        Path f = file(projectDir, dirName);
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
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
        return new RootDirInfo(tenant, project, dirName, type, p.getProperty("label", ""),
                p.getProperty("creatorProcessId", ""), created,
                Boolean.parseBoolean(p.getProperty("deleteOnCreatorClose", "false")), metadata,
                projectDir.resolve(dirName));
    }

    /**
     * Deletes a descriptor.
     *
     * @param projectDir the project directory
     * @param dirName the RootDir name
     * @throws IOException on failure
     */
    public static void delete(Path projectDir, String dirName) throws IOException {
        Files.deleteIfExists(file(projectDir, dirName));
    }

    /**
     * The RootDir names that have a descriptor in a project directory.
     *
     * @param projectDir the project directory
     * @return the names, unsorted
     * @throws IOException on failure
     */
    public static java.util.List<String> names(Path projectDir) throws IOException {
        Path dir = projectDir.resolve(DIR);
        java.util.List<String> out = new java.util.ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (var s = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : s) {
                String n = p.getFileName().toString();
                if (!n.startsWith(".")) {
                    out.add(n.substring(0, n.length() - SUFFIX.length()));
                }
            }
        }
        return out;
    }
}
