package org.vancetope.worktarget.testfixtures;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What a directory tree holds, for tests that compare trees by content: every regular file below a
 * directory by its relative, {@code /}-separated path, with the SHA-256 of its bytes.
 *
 * <pre>{@code
 * assertThat(FileTrees.sha256Listing(received)).isEqualTo(FileTrees.sha256Listing(sent));
 * assertThat(FileTrees.sha256Listing(received)).isEqualTo(Map.of("a.bin", FileTrees.sha256(a)));
 * }</pre>
 */
public final class FileTrees {
    private FileTrees() {
    }

    /**
     * Every regular file below a directory (links not followed), by its path relative to the directory with
     * {@code /} between names, with the SHA-256 of its content as 64 lower-case hex digits.
     *
     * @param dir the directory; a missing one lists nothing
     * @return the files, sorted by path
     * @throws IOException when the tree cannot be read
     */
    public static Map<String, String> sha256Listing(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).toList();
        }
        for (Path p : files) {
            out.put(dir.relativize(p).toString().replace(dir.getFileSystem().getSeparator(), "/"),
                    sha256(Files.readAllBytes(p)));
        }
        return out;
    }

    /**
     * The SHA-256 of some bytes.
     *
     * @param content the bytes
     * @return 64 lower-case hex digits
     */
    public static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
