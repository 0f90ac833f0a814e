package org.vancetope.worktarget.core.internal.transfer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.Reserved;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;

/**
 * The receiver's kept transfers on disk ({@code transfer.resume}): next to a resumable transfer's
 * staging file at the top of its root, a small sidecar says what the kept prefix is of (id, RootDir,
 * target, announced size and hash, attributes, the offset and next seq when the connection ended), so
 * that a restarted receiver can take the transfer up again after re-hashing the prefix. Both are
 * {@linkplain Reserved#resumableName reserved names}: hidden from every tool, refused as paths. The sweep
 * deletes them once the staging file has not been written for the retention time.
 */
final class KeptTransfers {
    private static final Logger LOG = LoggerFactory.getLogger(KeptTransfers.class);
    private static final int MAX_SIDECAR_BYTES = 64 * 1024;

    private KeptTransfers() {
    }

    /**
     * What a sidecar records.
     *
     * @param id the transfer id
     * @param dirName the Brain RootDir, or null
     * @param target the target as {@code transfer_init} named it
     * @param totalSize the announced size
     * @param hash the announced hash, or null (hash trailer)
     * @param offset the bytes kept when the connection ended (the staging file may hold more after a crash)
     * @param nextSeq the next seq expected when the connection ended
     * @param mode the masked permission bits, or null
     * @param mtime the modification time (ISO-8601), or null
     * @param verified whether the file was verified and committed (the sender may not have heard it yet)
     */
    record Sidecar(String id, String dirName, String target, long totalSize, String hash, long offset, long nextSeq,
                   Integer mode, String mtime, boolean verified) {
    }

    static String stagingName(String id) {
        return Reserved.resumableName(id, Reserved.FILE);
    }

    /** Writes (or replaces) the sidecar of a transfer, atomically by rename. */
    static void write(ConfinedRoot root, Sidecar s) throws IOException {
        Properties p = new Properties();
        p.setProperty("id", s.id());
        if (s.dirName() != null) {
            p.setProperty("dirName", s.dirName());
        }
        p.setProperty("target", s.target());
        p.setProperty("totalSize", Long.toString(s.totalSize()));
        if (s.hash() != null) {
            p.setProperty("hash", s.hash());
        }
        p.setProperty("offset", Long.toString(s.offset()));
        p.setProperty("nextSeq", Long.toString(s.nextSeq()));
        if (s.mode() != null) {
            p.setProperty("mode", Integer.toString(s.mode()));
        }
        if (s.mtime() != null) {
            p.setProperty("mtime", s.mtime());
        }
        if (s.verified()) {
            p.setProperty("verified", "true");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.store(out, "worktarget transfer.resume sidecar");
        String fresh = Reserved.resumableName(s.id(), Reserved.SIDECAR_NEW);
        String name = Reserved.resumableName(s.id(), Reserved.SIDECAR);
        try (SafeDirectory top = root.openRoot()) {
            try {
                top.deleteFile(fresh);
            } catch (NoSuchFileException e) {
                // the usual case
            }
            try (SeekableByteChannel ch = top.createFile(fresh)) {
                ByteBuffer b = ByteBuffer.wrap(out.toByteArray());
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
            top.replace(fresh, name);
        }
    }

    /** The sidecar of a transfer, empty when there is none (or it is unreadable, then it is deleted). */
    static Optional<Sidecar> read(ConfinedRoot root, String id) {
        String name = Reserved.resumableName(id, Reserved.SIDECAR);
        try (SafeDirectory top = root.openRoot(); SeekableByteChannel ch = top.openRead(name)) {
            if (ch.size() > MAX_SIDECAR_BYTES) {
                throw new IOException("sidecar larger than " + MAX_SIDECAR_BYTES + " bytes");
            }
            ByteBuffer b = ByteBuffer.allocate((int) ch.size());
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // read all
            }
            Properties p = new Properties();
            try (InputStream in = new ByteArrayInputStream(b.array(), 0, b.position())) {
                p.load(new java.io.InputStreamReader(in, StandardCharsets.ISO_8859_1));
            }
            if (!id.equals(p.getProperty("id"))) {
                return Optional.empty();    // another id with the same name hash: not ours
            }
            String mode = p.getProperty("mode");
            return Optional.of(new Sidecar(id, p.getProperty("dirName"), required(p, "target"),
                    Long.parseLong(required(p, "totalSize")), p.getProperty("hash"), Long.parseLong(required(p, "offset")),
                    Long.parseLong(required(p, "nextSeq")), mode == null ? null : Integer.valueOf(mode),
                    p.getProperty("mtime"), "true".equals(p.getProperty("verified"))));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Dropping the unreadable resume sidecar of transfer {}: {}", id, e.toString());
            delete(root, id);
            return Optional.empty();
        }
    }

    private static String required(Properties p, String key) throws IOException {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IOException("sidecar without " + key);
        }
        return v;
    }

    /** The size of the kept staging file, or -1 when there is none. */
    static long stagedSize(ConfinedRoot root, String id) {
        try (SafeDirectory top = root.openRoot()) {
            return top.attributes(stagingName(id)).size();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The SHA-256 state of the first {@code length} bytes of a kept staging file (the restart's re-hash). */
    static MessageDigest rehash(ConfinedRoot root, String id, long length) throws IOException {
        MessageDigest digest = Sha256.newDigest();
        try (SafeDirectory top = root.openRoot(); SeekableByteChannel ch = top.openRead(stagingName(id))) {
            Sha256.update(digest, ch, length);
        } catch (java.io.EOFException e) {
            throw new IOException("the kept staging file is shorter than " + length + " bytes", e);
        }
        return digest;
    }

    /** Deletes a transfer's kept staging file and sidecar; never throws. */
    static void delete(ConfinedRoot root, String id) {
        try (SafeDirectory top = root.openRoot()) {
            for (String suffix : List.of(Reserved.FILE, Reserved.SIDECAR, Reserved.SIDECAR_NEW)) {
                try {
                    top.deleteFile(Reserved.resumableName(id, suffix));
                } catch (NoSuchFileException e) {
                    // not there
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot delete the kept files of transfer {}: {}", id, e.toString());
        }
    }

    /**
     * Deletes the kept transfers of a root whose files were not written for {@code retentionMillis},
     * except those of {@code live} ids (transfers this process still runs or keeps).
     *
     * @return how many entries were deleted
     */
    static int sweep(ConfinedRoot root, long now, long retentionMillis, Set<String> liveNames) {
        int deleted = 0;
        try (SafeDirectory top = root.openRoot()) {
            // the newest write of any entry of a transfer decides, so a sidecar rewritten at a disconnect counts
            Map<String, Long> newest = new HashMap<>();
            Map<String, List<String>> names = new HashMap<>();
            for (String name : top.allNames()) {
                if (!Reserved.isResumable(name)) {
                    continue;
                }
                String stem = name.substring(0, name.indexOf('.', 1));
                long mtime;
                try {
                    mtime = top.attributes(name).lastModifiedTime().toMillis();
                } catch (IOException e) {
                    continue;
                }
                newest.merge(stem, mtime, Math::max);
                names.computeIfAbsent(stem, k -> new java.util.ArrayList<>()).add(name);
            }
            for (Map.Entry<String, List<String>> e : names.entrySet()) {
                if (liveNames.contains(e.getKey()) || newest.get(e.getKey()) + retentionMillis > now) {
                    continue;
                }
                for (String name : e.getValue()) {
                    try {
                        top.deleteFile(name);
                        deleted++;
                    } catch (IOException ex) {
                        LOG.warn("Cannot delete the expired kept entry {}: {}", name, ex.toString());
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot sweep kept transfers: {}", e.toString());
        }
        if (deleted > 0) {
            LOG.info("Deleted {} kept transfer entr{} past their resume retention", deleted, deleted == 1 ? "y" : "ies");
        }
        return deleted;
    }

    /** Whether a root holds any kept transfer entry. */
    static boolean keepsAny(ConfinedRoot root) throws IOException {
        try (SafeDirectory top = root.openRoot()) {
            for (String name : top.allNames()) {
                if (Reserved.isResumable(name)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The stem of a transfer's kept names ({@code .wt-r-<hex>}), as {@link #sweep} groups them. */
    static String stem(String id) {
        String n = stagingName(id);
        return n.substring(0, n.indexOf('.', 1));
    }
}
