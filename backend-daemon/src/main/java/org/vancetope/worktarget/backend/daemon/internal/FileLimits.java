package org.vancetope.worktarget.backend.daemon.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * This process's limit of open files, for caps that must leave file descriptors to the rest of the process.
 * Read from {@code /proc/self/limits} (Linux); elsewhere unknown. Thread-safe.
 */
public final class FileLimits {
    private static final Path LIMITS = Path.of("/proc/self/limits");

    private FileLimits() {
    }

    /**
     * The soft limit of open files of this process.
     *
     * @return the limit, or -1 when it is unknown or unlimited
     */
    public static long maxOpenFiles() {
        try {
            return parse(Files.readAllLines(LIMITS, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The soft limit of open files in the text of {@code /proc/PID/limits}.
     *
     * @param lines the lines of the file
     * @return the limit, or -1 when the line is missing or says unlimited
     */
    static long parse(List<String> lines) {
        for (String line : lines) {
            if (line.startsWith("Max open files")) {
                String[] words = line.substring("Max open files".length()).trim().split("\\s+");
                if (words.length > 0 && words[0].chars().allMatch(Character::isDigit) && !words[0].isEmpty()) {
                    return Long.parseLong(words[0]);
                }
                return -1;
            }
        }
        return -1;
    }
}
