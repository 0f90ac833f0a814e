package org.vancetope.worktarget.core.transfer;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The optional file attributes of {@code transfer_init} and {@code client.file.upload.request}:
 * the POSIX mode as an octal string and the modification time as an ISO instant.
 * Both fields are optional and kept exactly as they travel; {@link #modeBits()} and
 * {@link #mtimeInstant()} parse them.
 *
 * <p>It does not mask the mode: the receiver AND-masks it (0644 on the Brain, 0755 on the Foot).
 *
 * <pre>{@code
 * TransferAttrs a = new TransferAttrs("0755", "2026-05-01T14:23:11Z");
 * int bits = a.modeBits().orElse(0644);   // 0755
 * }</pre>
 *
 * @param mode POSIX permission bits in octal, e.g. {@code "0644"}, or null
 * @param mtime an ISO-8601 instant, e.g. {@code "2026-05-01T14:23:11Z"}, or null
 */
public record TransferAttrs(String mode, String mtime) {

    /** No attributes. */
    public static final TransferAttrs NONE = new TransferAttrs(null, null);

    /**
     * Whether neither field is set.
     *
     * @return true when both are null
     */
    public boolean isEmpty() {
        return mode == null && mtime == null;
    }

    /**
     * This value with every field that {@code override} sets replaced.
     *
     * @param override the overriding attributes, or null
     * @return the merged attributes
     */
    public TransferAttrs overriddenBy(TransferAttrs override) {
        if (override == null) {
            return this;
        }
        return new TransferAttrs(override.mode != null ? override.mode : mode,
                override.mtime != null ? override.mtime : mtime);
    }

    /**
     * The mode parsed as octal permission bits (at most {@code 07777}).
     *
     * @return the bits, empty when {@code mode} is null
     * @throws IllegalArgumentException when {@code mode} is not 1 to 4 octal digits (optionally with a leading 0)
     */
    public Optional<Integer> modeBits() {
        if (mode == null) {
            return Optional.empty();
        }
        if (!mode.matches("0?[0-7]{1,4}")) {
            throw new IllegalArgumentException("attrs.mode must be octal permission bits such as \"0644\", got \"" + mode + "\"");
        }
        return Optional.of(Integer.parseInt(mode, 8));
    }

    /**
     * The modification time parsed as an instant.
     *
     * @return the instant, empty when {@code mtime} is null
     * @throws IllegalArgumentException when {@code mtime} is not an ISO-8601 instant
     */
    public Optional<Instant> mtimeInstant() {
        if (mtime == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(mtime));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("attrs.mtime must be an ISO-8601 instant such as \"2026-05-01T14:23:11Z\", got \""
                    + mtime + "\"", e);
        }
    }
}
