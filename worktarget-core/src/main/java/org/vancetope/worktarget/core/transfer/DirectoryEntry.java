package org.vancetope.worktarget.core.transfer;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a {@link DirectoryManifest}: a path relative to the transferred directory, its kind, and
 * for a file its exact size and SHA-256. The receiver checks every entry through its confinement gate
 * before anything of it is written; the record itself only checks its structure.
 *
 * <pre>{@code
 * new DirectoryEntry("src/main.c", DirectoryEntry.Kind.FILE, 1234, "sha256:8f3c...");
 * new DirectoryEntry("src", DirectoryEntry.Kind.DIRECTORY, 0, null);
 * }</pre>
 *
 * @param path the entry's path relative to the transferred directory, {@code '/'} separated
 * @param kind what the entry is
 * @param size the file's size in bytes; 0 for every other kind
 * @param hash {@code "sha256:<hex>"} of a file; null for every other kind
 */
public record DirectoryEntry(String path, Kind kind, long size, String hash) {

    /** What an entry is. Links and special files are listed so that the result can report them, never followed. */
    public enum Kind {
        /** A regular file: transferred and committed atomically, like a single-file transfer. */
        FILE("file"),
        /** A directory: created on the receiver (also when empty). */
        DIRECTORY("dir"),
        /** A symbolic link: never followed on the sender, never created on the receiver; reported as skipped. */
        LINK("link"),
        /** A device, socket or pipe: never read, never created; reported as skipped. */
        SPECIAL("special");

        private final String wire;

        Kind(String wire) {
            this.wire = wire;
        }

        /**
         * The name in the manifest's {@code type} field.
         *
         * @return {@code file}, {@code dir}, {@code link} or {@code special}
         */
        public String wire() {
            return wire;
        }

        /**
         * The kind of a wire name.
         *
         * @param name a {@code type} field
         * @return the kind, empty for an unknown name
         */
        public static Optional<Kind> fromWire(String name) {
            for (Kind k : values()) {
                if (k.wire.equals(name == null ? null : name.toLowerCase(Locale.ROOT))) {
                    return Optional.of(k);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Validates the structure: a path and a kind, a size not negative.
     *
     * @param path the entry's path relative to the transferred directory, {@code '/'} separated
     * @param kind what the entry is
     * @param size the file's size in bytes; 0 for every other kind
     * @param hash {@code "sha256:<hex>"} of a file; null for every other kind
     */
    public DirectoryEntry {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative");
        }
    }
}
