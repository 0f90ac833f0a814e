package org.vancetope.worktarget.mcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Commands that wait until the test lets them end: {@link #ARGUMENTS} are {@code exec_run} arguments whose
 * command, run in the tools' directory, leaves a file {@code started.PID} there and ends once the file
 * {@code release} exists; the call waits for it.
 */
final class WaitingCommands {
    /** The {@code exec_run} arguments of a waiting command. */
    static final String ARGUMENTS = "{\"command\":\"touch started.$$; while [ ! -e release ]; do sleep 0.05; done;"
            + " echo released\",\"waitMs\":110000}";

    private final Path dir;

    /**
     * The waiting commands run in this directory.
     *
     * @param dir the tools' directory
     */
    WaitingCommands(Path dir) {
        this.dir = dir;
    }

    /** The process ids of the commands that have started. */
    List<Long> pids() {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("started."))
                    .map(n -> Long.parseLong(n.substring("started.".length()))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many commands have started. */
    long started() {
        return pids().size();
    }

    /** Lets every waiting command end (and any started later). */
    void release() throws IOException {
        Files.writeString(dir.resolve("release"), "go");
    }
}
