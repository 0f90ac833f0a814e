package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FinderTest {

    @Test
    void findsTheSameFirstOccurrenceAsStringIndexOf() {
        Random rnd = new Random(7);
        String alphabet = "ab_ \n";
        for (int round = 0; round < 2000; round++) {
            StringBuilder text = new StringBuilder();
            int len = rnd.nextInt(300);
            for (int i = 0; i < len; i++) {
                text.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
            }
            StringBuilder needle = new StringBuilder();
            int nl = 1 + rnd.nextInt(4);
            for (int i = 0; i < nl; i++) {
                needle.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
            }
            String t = text.toString();
            String n = needle.toString();
            int from = len == 0 ? 0 : rnd.nextInt(len);
            assertThat(new Finder(n).indexIn(t, from)).as("'%s' in '%s' from %d", n, t, from).isEqualTo(t.indexOf(n, from));
        }
    }

    @Test
    void fallsBackWhenTheRareCharacterIsCommonInTheText() {
        String text = "_".repeat(5000) + "x_y";
        assertThat(new Finder("x_y").indexIn(text, 0)).isEqualTo(5000);
        assertThat(new Finder("_z").indexIn(text, 0)).isEqualTo(-1);
    }

    @Test
    void findsTheSameFirstOccurrenceWhenTheRarestCharactersAreAllCommon() {
        // long texts where the needle's rare characters (z, q, j by the static guess) are dense, so the
        // search moves on from one candidate character to the next and finally to indexOf(String)
        Random rnd = new Random(11);
        String[] alphabets = {"zzzzqa", "zqjzqjab", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzqqqqqqqqqqqqqjjjjjjjb", "ab z"};
        String[] needles = {"zqa", "qz", "zzqa", "jqza", "azqj", "bz", "za ", "zjqb"};
        for (int round = 0; round < 400; round++) {
            String alphabet = alphabets[round % alphabets.length];
            StringBuilder text = new StringBuilder();
            int len = 2000 + rnd.nextInt(20000);
            for (int i = 0; i < len; i++) {
                text.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
            }
            String n = needles[rnd.nextInt(needles.length)];
            if (round % 3 == 0) {
                text.insert(rnd.nextInt(len), n);
            }
            String t = text.toString();
            int from = rnd.nextInt(len / 2);
            assertThat(new Finder(n).indexIn(t, from)).as("'%s' in a text of '%s' from %d", n, alphabet, from)
                    .isEqualTo(t.indexOf(n, from));
        }
    }

    @Test
    void findsANeedleAfterASwitchToTheNextCandidateCharacter() {
        // 'z' (the first candidate) is everywhere, 'q' (the second) only in the occurrence
        String text = "za".repeat(3000) + "zqz" + "za".repeat(10);
        assertThat(new Finder("zqz").indexIn(text, 0)).isEqualTo(6000);
        assertThat(new Finder("zqz").indexIn(text, 6001)).isEqualTo(-1);
    }

    @Test
    void handlesNonLatin1Needles() {
        assertThat(new Finder("grüße €").indexIn("viele grüße € und mehr", 0)).isEqualTo(6);
    }
}
