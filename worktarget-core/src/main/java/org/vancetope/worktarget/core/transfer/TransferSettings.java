package org.vancetope.worktarget.core.transfer;

import java.time.Duration;
import java.util.Set;
import java.util.EnumSet;
import java.util.Collections;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.transfer.ChunkCompression;

/**
 * The limits and timeouts of file transfer, each a named
 * setting with its default ({@code docs/configuration.md} lists them all). Immutable; build with {@link #builder()} or start from
 * {@link #defaults()} and {@link #toBuilder()}.
 *
 * <pre>{@code
 * TransferSettings s = TransferSettings.defaults().toBuilder()
 *         .maxUploadSize(500L * 1024 * 1024)
 *         .phaseTimeout(Duration.ofSeconds(60))
 *         .build();
 * }</pre>
 *
 * <p>It does not read system properties or environment variables: the host maps its own settings
 * (e.g. {@code vance.transfer.chunk-size}) onto the builder.
 */
public final class TransferSettings {
    /** The hard upper limit of a chunk's raw size: 1 MiB. */
    public static final int HARD_MAX_CHUNK_BYTES = 1024 * 1024;

    private static final TransferSettings DEFAULTS = new Builder().build();

    private final int chunkSize;
    private final long maxUploadSize;
    private final long maxDownloadSize;
    private final int brainModeMask;
    private final int footModeMask;
    private final Duration phaseTimeout;
    private final Duration cleanupInterval;
    private final int maxChunksInFlight;
    private final boolean syncBeforeCommit;
    private final int maxDirectoryEntries;
    private final long maxDirectoryBytes;
    private final Set<TransferCapability> capabilities;
    private final int compressionLevel;
    private final Duration resumeRetention;
    private final Duration reconnectWait;

    private TransferSettings(Builder b) {
        this.chunkSize = b.chunkSize;
        this.maxUploadSize = b.maxUploadSize;
        this.maxDownloadSize = b.maxDownloadSize;
        this.brainModeMask = b.brainModeMask;
        this.footModeMask = b.footModeMask;
        this.phaseTimeout = b.phaseTimeout;
        this.cleanupInterval = b.cleanupInterval;
        this.maxChunksInFlight = b.maxChunksInFlight;
        this.syncBeforeCommit = b.syncBeforeCommit;
        EnumSet<TransferCapability> offered = EnumSet.copyOf(b.capabilities);
        if (!ChunkCompression.available()) {
            offered.remove(TransferCapability.ZSTD);        // without zstd-jni it is simply not offered
        }
        this.capabilities = Collections.unmodifiableSet(offered);
        this.compressionLevel = b.compressionLevel;
        this.resumeRetention = b.resumeRetention;
        this.reconnectWait = b.reconnectWait;
        this.maxDirectoryEntries = b.maxDirectoryEntries;
        this.maxDirectoryBytes = b.maxDirectoryBytes;
    }

    /**
     * The defaults.
     *
     * @return the default settings
     */
    public static TransferSettings defaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from these settings.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.chunkSize = chunkSize;
        b.maxUploadSize = maxUploadSize;
        b.maxDownloadSize = maxDownloadSize;
        b.brainModeMask = brainModeMask;
        b.footModeMask = footModeMask;
        b.phaseTimeout = phaseTimeout;
        b.cleanupInterval = cleanupInterval;
        b.maxChunksInFlight = maxChunksInFlight;
        b.syncBeforeCommit = syncBeforeCommit;
        b.maxDirectoryEntries = maxDirectoryEntries;
        b.maxDirectoryBytes = maxDirectoryBytes;
        // EnumSet.copyOf of an empty Set (not an EnumSet) throws: settings without capabilities are the base protocol
        b.capabilities = EnumSet.noneOf(TransferCapability.class);
        b.capabilities.addAll(capabilities);
        b.compressionLevel = compressionLevel;
        b.resumeRetention = resumeRetention;
        b.reconnectWait = reconnectWait;
        return b;
    }

    /**
     * The negotiated chunk size ({@code vance.transfer.chunk-size}, default 64 KiB, at most
     * {@link #HARD_MAX_CHUNK_BYTES}): the raw size of the chunks a sender cuts, and the largest
     * chunk a receiver accepts.
     *
     * @return bytes per chunk
     */
    public int chunkSize() {
        return chunkSize;
    }

    /**
     * The largest file the Brain accepts from a client ({@code vance.transfer.max-upload-size},
     * default 100 MiB).
     *
     * @return bytes
     */
    public long maxUploadSize() {
        return maxUploadSize;
    }

    /**
     * The largest file a client accepts from the Brain ({@code vance.transfer.max-download-size},
     * default 100 MiB).
     *
     * @return bytes
     */
    public long maxDownloadSize() {
        return maxDownloadSize;
    }

    /**
     * The mask applied to {@code attrs.mode} when the Brain receives
     * ({@code vance.transfer.brain-mode-mask}, default {@code 0644}).
     *
     * @return permission bits
     */
    public int brainModeMask() {
        return brainModeMask;
    }

    /**
     * The mask applied to {@code attrs.mode} when a client receives
     * ({@code vance.transfer.foot-mode-mask}, default {@code 0755}).
     *
     * @return permission bits
     */
    public int footModeMask() {
        return footModeMask;
    }

    /**
     * The timeout of each waiting phase ({@code vance.transfer.phase-timeout}, default 30 s): for the
     * init response, between chunks, for {@code transfer_complete}, for {@code transfer_finish}, and
     * for the client's answer to an upload request.
     *
     * @return the timeout
     */
    public Duration phaseTimeout() {
        return phaseTimeout;
    }

    /**
     * How often the sweep removes transfers without activity for this long
     * ({@code vance.transfer.cleanup-interval}, default 5 min).
     *
     * @return the interval
     */
    public Duration cleanupInterval() {
        return cleanupInterval;
    }

    /**
     * The most chunks a sender has handed to the channel and not yet seen written (default 32): the
     * sender's memory bound under back-pressure, besides the channel's writability (a sender stops while
     * its channel is not writable, which on a WebSocket connection is above 1 MiB queued by default). Fewer
     * leave the connection idle while the sender reads the next chunks: 8 moved about a fifth less over
     * loopback than 32.
     *
     * @return chunks
     */
    public int maxChunksInFlight() {
        return maxChunksInFlight;
    }

    /**
     * Whether a receiver forces a verified file's data to the storage device ({@code fdatasync})
     * before it renames it onto the target (default true). With true, a target that exists after a
     * power loss holds the whole verified content; the transfer pays the device's write time before
     * it reports success (about 1 s per 512 MiB on the benchmark machine). With false, the rename
     * follows the hash check at once and the data reaches the device with the system's normal
     * write-back, as with {@code cp}, {@code scp} or {@code rsync}: after a crash shortly after a
     * transfer the target may be empty or short on some file systems. Neither setting ever exposes
     * an unverified or half-written target while the system runs.
     *
     * @return true to sync before the rename
     */
    public boolean syncBeforeCommit() {
        return syncBeforeCommit;
    }

    /**
     * The most entries (files, directories, links) one directory transfer may have
     * ({@code vance.transfer.max-directory-entries}, default 4096; the manifest is one frame, which must fit the
     * wire's frame limit). A sender refuses to list a larger tree,
     * a receiver refuses a larger manifest as a whole ({@code size_limit}).
     *
     * @return entries
     */
    public int maxDirectoryEntries() {
        return maxDirectoryEntries;
    }

    /**
     * The most bytes all files of one directory transfer may have together
     * ({@code vance.transfer.max-directory-bytes}, default 1 GiB); each file is also bound by
     * {@link #maxUploadSize()} or {@link #maxDownloadSize()}. A sender refuses to list a larger tree, a
     * receiver refuses a larger manifest as a whole ({@code size_limit}).
     *
     * @return bytes
     */
    public long maxDirectoryBytes() {
        return maxDirectoryBytes;
    }

    /**
     * The transfer capabilities this side offers in its handshake (default: every one this version
     * implements). A connection uses those both ends offer; with none, this side transfers exactly as
     * the base protocol says. {@link TransferCapability#ZSTD} is in it only when zstd-jni (an optional
     * dependency) is on the class path and its native library loads; otherwise it is left out, even
     * when the builder was given it.
     *
     * @return the capabilities
     */
    public Set<TransferCapability> capabilities() {
        return capabilities;
    }

    /**
     * The zstd level a sender compresses chunks with when the connection negotiated
     * {@link TransferCapability#ZSTD} ({@code vance.transfer.compression-level}, default 3, from 1 to
     * 19): higher levels make text smaller and cost more CPU per byte.
     *
     * @return the level
     */
    public int compressionLevel() {
        return compressionLevel;
    }

    /**
     * How long a receiver keeps the staging file of a transfer whose connection ended, so that the
     * sender can resume it ({@link TransferCapability#RESUME}; {@code vance.transfer.resume-retention},
     * default 10 min). The time counts from the last byte written; a kept transfer not resumed by then is
     * deleted, with its sidecar, by the receiver's sweep (also after a restart of the receiving process).
     *
     * @return the retention time
     */
    public Duration resumeRetention() {
        return resumeRetention;
    }

    /**
     * How long one transfer tool call waits for the peer of a connection lost mid-transfer to come back
     * and resume on its new connection ({@link TransferCapability#RESUME};
     * {@code vance.transfer.reconnect-wait}, default 30 s). When it does not come back in that time the
     * call fails {@code offline} with a {@link TransferResult#resumeId()}; a directory call
     * ({@link TransferCapability#DIRECTORY}) fails its remaining files {@code offline} and keeps nothing of the
     * interrupted one.
     *
     * @return the wait
     */
    public Duration reconnectWait() {
        return reconnectWait;
    }

    @Override
    public String toString() {
        return "TransferSettings[chunkSize=" + chunkSize + ", maxUploadSize=" + maxUploadSize + ", maxDownloadSize="
                + maxDownloadSize + ", brainModeMask=0" + Integer.toOctalString(brainModeMask) + ", footModeMask=0"
                + Integer.toOctalString(footModeMask) + ", phaseTimeout=" + phaseTimeout + ", cleanupInterval="
                + cleanupInterval + ", maxChunksInFlight=" + maxChunksInFlight + ", syncBeforeCommit=" + syncBeforeCommit
                + ", maxDirectoryEntries=" + maxDirectoryEntries + ", maxDirectoryBytes=" + maxDirectoryBytes
                + ", capabilities=" + capabilities + ", compressionLevel=" + compressionLevel
                + ", resumeRetention=" + resumeRetention + ", reconnectWait=" + reconnectWait + "]";
    }

    /** Builds {@link TransferSettings}; every setting starts at its default. */
    public static final class Builder {
        private int chunkSize = 64 * 1024;
        private long maxUploadSize = 100L * 1024 * 1024;
        private long maxDownloadSize = 100L * 1024 * 1024;
        private int brainModeMask = 0644;
        private int footModeMask = 0755;
        private Duration phaseTimeout = Duration.ofSeconds(30);
        private Duration cleanupInterval = Duration.ofMinutes(5);
        private int maxChunksInFlight = 32;
        private boolean syncBeforeCommit = true;
        private int maxDirectoryEntries = 4096;
        private long maxDirectoryBytes = 1024L * 1024 * 1024;
        private EnumSet<TransferCapability> capabilities = EnumSet.allOf(TransferCapability.class);
        private int compressionLevel = ChunkCompression.DEFAULT_LEVEL;
        private Duration resumeRetention = Duration.ofMinutes(10);
        private Duration reconnectWait = Duration.ofSeconds(30);

        private Builder() {
        }

        /**
         * Sets {@link TransferSettings#chunkSize()}.
         *
         * @param bytes 1 to {@link #HARD_MAX_CHUNK_BYTES}
         * @return this
         */
        public Builder chunkSize(int bytes) {
            this.chunkSize = bytes;
            return this;
        }

        /**
         * Sets {@link TransferSettings#maxUploadSize()}.
         *
         * @param bytes not negative
         * @return this
         */
        public Builder maxUploadSize(long bytes) {
            this.maxUploadSize = bytes;
            return this;
        }

        /**
         * Sets {@link TransferSettings#maxDownloadSize()}.
         *
         * @param bytes not negative
         * @return this
         */
        public Builder maxDownloadSize(long bytes) {
            this.maxDownloadSize = bytes;
            return this;
        }

        /**
         * Sets {@link TransferSettings#brainModeMask()}.
         *
         * @param bits 0 to 0777
         * @return this
         */
        public Builder brainModeMask(int bits) {
            this.brainModeMask = bits;
            return this;
        }

        /**
         * Sets {@link TransferSettings#footModeMask()}.
         *
         * @param bits 0 to 0777
         * @return this
         */
        public Builder footModeMask(int bits) {
            this.footModeMask = bits;
            return this;
        }

        /**
         * Sets {@link TransferSettings#phaseTimeout()}.
         *
         * @param timeout positive
         * @return this
         */
        public Builder phaseTimeout(Duration timeout) {
            this.phaseTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Sets {@link TransferSettings#cleanupInterval()}.
         *
         * @param interval positive
         * @return this
         */
        public Builder cleanupInterval(Duration interval) {
            this.cleanupInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * Sets {@link TransferSettings#maxChunksInFlight()}.
         *
         * @param chunks at least 1
         * @return this
         */
        public Builder maxChunksInFlight(int chunks) {
            this.maxChunksInFlight = chunks;
            return this;
        }

        /**
         * Sets {@link TransferSettings#syncBeforeCommit()}.
         *
         * @param sync false to rename a verified file without forcing it to the device first
         * @return this
         */
        public Builder syncBeforeCommit(boolean sync) {
            this.syncBeforeCommit = sync;
            return this;
        }

        /**
         * Sets {@link TransferSettings#maxDirectoryEntries()}.
         *
         * @param entries at least 1
         * @return this
         */
        public Builder maxDirectoryEntries(int entries) {
            this.maxDirectoryEntries = entries;
            return this;
        }

        /**
         * Sets {@link TransferSettings#maxDirectoryBytes()}.
         *
         * @param bytes not negative
         * @return this
         */
        public Builder maxDirectoryBytes(long bytes) {
            this.maxDirectoryBytes = bytes;
            return this;
        }

        /**
         * Sets {@link TransferSettings#capabilities()}: the transfer capabilities this side offers. An
         * empty set makes this side speak the base protocol only.
         *
         * @param offered the capabilities
         * @return this
         */
        public Builder capabilities(Set<TransferCapability> offered) {
            this.capabilities = offered.isEmpty() ? EnumSet.noneOf(TransferCapability.class) : EnumSet.copyOf(offered);
            return this;
        }

        /**
         * Sets {@link TransferSettings#compressionLevel()}.
         *
         * @param level 1 to 19
         * @return this
         */
        public Builder compressionLevel(int level) {
            this.compressionLevel = level;
            return this;
        }

        /**
         * Sets {@link TransferSettings#resumeRetention()}.
         *
         * @param retention positive
         * @return this
         */
        public Builder resumeRetention(Duration retention) {
            this.resumeRetention = Objects.requireNonNull(retention, "retention");
            return this;
        }

        /**
         * Sets {@link TransferSettings#reconnectWait()}.
         *
         * @param wait not negative; zero fails a lost transfer at once with its resume id
         * @return this
         */
        public Builder reconnectWait(Duration wait) {
            this.reconnectWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the settings
         * @throws IllegalArgumentException naming the first invalid setting
         */
        public TransferSettings build() {
            if (chunkSize < 1 || chunkSize > HARD_MAX_CHUNK_BYTES) {
                throw new IllegalArgumentException("chunkSize must be between 1 and " + HARD_MAX_CHUNK_BYTES + " bytes, got "
                        + chunkSize);
            }
            if (maxUploadSize < 0 || maxDownloadSize < 0) {
                throw new IllegalArgumentException("maxUploadSize and maxDownloadSize must not be negative");
            }
            if ((brainModeMask & ~0777) != 0 || brainModeMask < 0 || (footModeMask & ~0777) != 0 || footModeMask < 0) {
                throw new IllegalArgumentException("brainModeMask and footModeMask must be permission bits within 0777");
            }
            if (phaseTimeout.isNegative() || phaseTimeout.isZero()) {
                throw new IllegalArgumentException("phaseTimeout must be positive, got " + phaseTimeout);
            }
            if (cleanupInterval.isNegative() || cleanupInterval.isZero()) {
                throw new IllegalArgumentException("cleanupInterval must be positive, got " + cleanupInterval);
            }
            if (resumeRetention.isNegative() || resumeRetention.isZero()) {
                throw new IllegalArgumentException("resumeRetention must be positive, got " + resumeRetention);
            }
            if (reconnectWait.isNegative()) {
                throw new IllegalArgumentException("reconnectWait must not be negative, got " + reconnectWait);
            }
            if (maxChunksInFlight < 1) {
                throw new IllegalArgumentException("maxChunksInFlight must be at least 1, got " + maxChunksInFlight);
            }
            if (compressionLevel < ChunkCompression.MIN_LEVEL || compressionLevel > ChunkCompression.MAX_LEVEL) {
                throw new IllegalArgumentException("compressionLevel must be between " + ChunkCompression.MIN_LEVEL
                        + " and " + ChunkCompression.MAX_LEVEL + " (zstd levels), got " + compressionLevel);
            }
            if (maxDirectoryEntries < 1) {
                throw new IllegalArgumentException("maxDirectoryEntries must be at least 1, got " + maxDirectoryEntries);
            }
            if (maxDirectoryBytes < 0) {
                throw new IllegalArgumentException("maxDirectoryBytes must not be negative, got " + maxDirectoryBytes);
            }
            return new TransferSettings(this);
        }
    }
}
