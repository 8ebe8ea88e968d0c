@NullMarked
package io.switchboard.cli;

import org.jspecify.annotations.NullMarked;
