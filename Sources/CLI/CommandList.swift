// Every subcommand, in the order `symbolicate --help` lists them. The first one is the default
// (`symbolicate REPORT [SYMBOL_PATH...]`, symbolicatecrash's arguments).

let commandList: [any Command.Type] = [
    SymbolicateCommand.self,
    InspectCommand.self,
    LookupCommand.self,
    ImportCommand.self,
    ListCommand.self,
    RemoveCommand.self,
    GCCommand.self,
    VerifyCommand.self,
    ReindexCommand.self,
    SyncCommand.self,
    ServeCommand.self,
    HealthcheckCommand.self,
    UploadCommand.self,
    BatchCommand.self,
]
