# The epimask workbench as an app directory, for shiny::runApp(), Shiny Server
# or shinytest2: shiny::runApp(system.file("workbench", package = "epimask")).
# At the console, run_workbench(data) does the same with your own data frame.
epimask:::workbench_app()
