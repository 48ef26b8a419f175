from tui.launch import main

main()
