// The `symbolicate` executable: all work is in the CLI target.
import CLI

CommandLineTool.main()
